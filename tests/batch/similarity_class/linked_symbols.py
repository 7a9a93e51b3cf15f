# Each word is a doubly linked list of symbols, so a merge splices two nodes into one.


class Node:
    __slots__ = ("text", "prev", "next")

    def __init__(self, text):
        self.text, self.prev, self.next = text, None, None


def build(word):
    head = tail = None
    for text in [*word, "</w>"]:
        node = Node(text)
        if tail is None:
            head = node
        else:
            tail.next, node.prev = node, tail
        tail = node
    return head


def walk(head):
    node = head
    while node is not None:
        yield node
        node = node.next


def splice(head, left, right):
    node = head
    while node is not None and node.next is not None:
        if node.text == left and node.next.text == right:
            gone = node.next
            node.text = left + right
            node.next = gone.next
            if gone.next is not None:
                gone.next.prev = node
        node = node.next
    return head


def train_bpe(corpus, num_merges):
    heads, weights = {}, {}
    for text in corpus:
        for word in text.split():
            if word not in heads:
                heads[word] = build(word)
            weights[word] = weights.get(word, 0) + 1
    chosen = []
    for _round in range(num_merges):
        seen = {}
        for word, head in heads.items():
            for node in walk(head):
                if node.next is not None:
                    key = (node.text, node.next.text)
                    seen[key] = seen.get(key, 0) + weights[word]
        if not seen:
            break
        most = max(seen.values())
        pick = sorted(key for key, value in seen.items() if value == most)[0]
        chosen.append(pick)
        for word in heads:
            heads[word] = splice(heads[word], *pick)
    return chosen


def encode(word, merges):
    head = build(word)
    for left, right in merges:
        head = splice(head, left, right)
    return [node.text for node in walk(head)]
