import heapq
from collections import defaultdict


def train_bpe(corpus, num_merges):
    freq = defaultdict(int)
    for line in corpus:
        for w in line.split():
            freq[w] += 1
    seqs = [list(w) + ["</w>"] for w in freq]
    weight = [freq[w] for w in freq]
    count = defaultdict(int)
    where = defaultdict(set)
    for idx, seq in enumerate(seqs):
        for pair in zip(seq, seq[1:]):
            count[pair] += weight[idx]
            where[pair].add(idx)
    heap = [(-c, p) for p, c in count.items()]
    heapq.heapify(heap)
    out = []
    while heap and len(out) < num_merges:
        neg, pair = heapq.heappop(heap)
        if count.get(pair, 0) != -neg or -neg <= 0:
            if count.get(pair, 0) > 0 and count[pair] != -neg:
                heapq.heappush(heap, (-count[pair], pair))
            continue
        out.append(pair)
        new = pair[0] + pair[1]
        for idx in sorted(where.pop(pair, ())):
            seq = seqs[idx]
            for old in zip(seq, seq[1:]):
                count[old] -= weight[idx]
            merged, j = [], 0
            while j < len(seq):
                if j + 1 < len(seq) and seq[j] == pair[0] and seq[j + 1] == pair[1]:
                    merged.append(new)
                    j += 2
                else:
                    merged.append(seq[j])
                    j += 1
            seqs[idx] = merged
            for fresh in zip(merged, merged[1:]):
                count[fresh] += weight[idx]
                where[fresh].add(idx)
                heapq.heappush(heap, (-count[fresh], fresh))
        count.pop(pair, None)
    return out


def encode(word, merges):
    order = {tuple(m): r for r, m in enumerate(merges)}
    seq = list(word) + ["</w>"]
    while len(seq) > 1:
        ranked = min(range(len(seq) - 1), key=lambda i: order.get((seq[i], seq[i + 1]), 1e18))
        if (seq[ranked], seq[ranked + 1]) not in order:
            break
        seq[ranked:ranked + 2] = [seq[ranked] + seq[ranked + 1]]
    return seq
