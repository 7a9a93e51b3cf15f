class Tokenizer:
    """Byte-pair encoding over space-split words with an end-of-word marker."""

    marker = "</w>"

    def __init__(self):
        self.rules = []

    def _initial(self, word):
        return tuple(word) + (self.marker,)

    def _pair_frequencies(self, table):
        found = {}
        for symbols, weight in table.items():
            for index in range(len(symbols) - 1):
                key = symbols[index:index + 2]
                found[key] = found.get(key, 0) + weight
        return found

    @staticmethod
    def _apply(symbols, rule):
        result = []
        position = 0
        while position < len(symbols):
            if symbols[position:position + 2] == rule:
                result.append("".join(rule))
                position += 2
            else:
                result.append(symbols[position])
                position += 1
        return tuple(result)

    def fit(self, texts, steps):
        table = {}
        for text in texts:
            for word in text.split():
                form = self._initial(word)
                table[form] = table.get(form, 0) + 1
        for _ in range(steps):
            frequencies = self._pair_frequencies(table)
            if not frequencies:
                break
            rule = sorted(frequencies.items(), key=lambda item: (-item[1], item[0]))[0][0]
            self.rules.append(rule)
            table = {self._apply(form, rule): weight for form, weight in table.items()}
        return self

    def tokenize(self, word):
        symbols = self._initial(word)
        for rule in self.rules:
            symbols = self._apply(symbols, tuple(rule))
        return list(symbols)


def train_bpe(corpus, num_merges):
    return [tuple(rule) for rule in Tokenizer().fit(corpus, num_merges).rules]


def encode(word, merges):
    tokenizer = Tokenizer()
    tokenizer.rules = [tuple(m) for m in merges]
    return tokenizer.tokenize(word)
