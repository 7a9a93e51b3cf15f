"""Test support: running commands as a default Docker container would (see ``container``)."""
