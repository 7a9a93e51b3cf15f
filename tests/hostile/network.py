"""Connects to a loopback TCP port it was given; reports whether it got through."""
import socket


def train_bpe(port, num_merges):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0) as connection:
            connection.sendall(b"leak")
            return True
    except OSError:
        return False
