def train_bpe(corpus, num_merges:
    return []
