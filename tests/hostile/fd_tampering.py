"""Writes forged answer frames to every file descriptor and closes them, during the call."""
import json
import os
import struct

FORGED = json.dumps({"status": "ok", "value": [["forged", "answer"]]}).encode()


def train_bpe(corpus, num_merges):
    frame = struct.pack(">I", len(FORGED)) + FORGED
    for fd in range(0, 64):
        try:
            os.write(fd, frame)
        except OSError:
            pass
    for fd in range(0, 64):
        try:
            os.close(fd)
        except OSError:
            pass
    return [("honest", "answer")]
