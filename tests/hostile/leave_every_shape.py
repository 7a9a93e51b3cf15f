"""A correct trainer that, in every call, leaves a tree of each shape the cleaners must remove
(1,200 nested directories, a chain of 24 directories with 200-character names, directories
locked with mode 000, a note in /dev/shm), each holding the call's corpus; a call that finds
an earlier call's corpus answers with it instead, so anything left over shows in the report."""
import os

MARK = "left-by-a-call"


def _plant(place, note):
    os.chdir(place)
    os.mkdir(MARK + "-deep")
    os.chdir(MARK + "-deep")
    for _ in range(1200):
        os.mkdir("d")
        os.chdir("d")
    _write("note", note)
    os.chdir(place)
    os.mkdir(MARK + "-long")
    os.chdir(MARK + "-long")
    for level in range(24):
        name = str(level) * 200
        os.mkdir(name)
        os.chdir(name)
    _write("note", note)
    os.chdir(place)
    os.makedirs(MARK + "-locked/inner/innermost")
    _write(MARK + "-locked/inner/innermost/note", note)
    for path in ("inner/innermost", "inner", ""):
        os.chmod(os.path.join(place, MARK + "-locked", path), 0)


def _write(path, text):
    with open(path, "w") as handle:
        handle.write(text)


def _notes(place):
    """Every note an earlier call left under ``place``, found however deep."""
    found = []
    try:  # this uid's only: other sandboxes may share /dev/shm, each as a uid of its own
        names = [name for name in os.listdir(place) if name.startswith(MARK)
                 and os.lstat(os.path.join(place, name)).st_uid == os.getuid()]
    except OSError:
        return found
    for name in names:
        for root, dirs, files in os.walk(os.path.join(place, name)):
            os.chmod(root, 0o700)
            for inner in dirs:
                os.chmod(os.path.join(root, inner), 0o700)
            if "note" in files:
                found.append(name)
    return found


def train_bpe(corpus, num_merges):
    scratch = os.path.dirname(os.environ.get("TMPDIR", "/tmp"))
    here = os.getcwd()
    leaked = _notes(scratch) + _notes("/dev/shm")
    for place in (scratch, "/dev/shm"):
        try:
            _plant(place, repr(corpus))
        except OSError:
            pass
    os.chdir(here)
    if leaked:
        return [(name, "leaked") for name in leaked]
    counts = {}
    for text in corpus:
        for word in text.split():
            symbols = tuple(word) + ("</w>",)
            counts[symbols] = counts.get(symbols, 0) + 1
    merges = []
    for _ in range(num_merges):
        pairs = {}
        for symbols, count in counts.items():
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] = pairs.get(pair, 0) + count
        if not pairs:
            break
        best = min(pairs, key=lambda pair: (-pairs[pair], pair))
        merges.append(best)
        counts = {_merge(symbols, best): count for symbols, count in counts.items()}
    return merges


def _merge(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def encode(word, merges):
    symbols = tuple(word) + ("</w>",)
    for pair in merges:
        symbols = _merge(symbols, tuple(pair))
    return list(symbols)
