"""The reference Byte-Pair Encoding everything is graded against.

``train_bpe`` and ``encode`` follow the contract in docs/architecture.md ("The reference"): a corpus of texts or word
counts, each word its characters plus an end-of-word symbol, pair counts weighted by word
frequency, ties broken by one of ``TIE_BREAKS``. ``reference.plain`` is the definition;
``train_bpe`` here is the fast trainer, proven equal to it by property tests.
"""

from reference.corpus import END_OF_WORD
from reference.encoding import Encoder, encode
from reference.errors import BPEInputError
from reference.fast import train_bpe
from reference.tie_breaks import TIE_BREAKS

__all__ = ["END_OF_WORD", "TIE_BREAKS", "BPEInputError", "Encoder", "encode", "train_bpe"]
