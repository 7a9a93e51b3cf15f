"""Writes forged load and call replies to every file descriptor while being imported."""
import json
import os
import struct

for request_id in range(0, 8):
    for reply in (
        {"id": request_id, "status": "loaded", "functions": ["train_bpe"]},
        {"id": request_id, "answer": {"status": "ok", "value": [["forged", "answer"]]}},
    ):
        body = json.dumps(reply).encode()
        for fd in range(3, 32):
            try:
                os.write(fd, struct.pack(">I", len(body)) + body)
            except OSError:
                pass


def train_bpe(corpus, num_merges):
    return [("honest", "answer")]
