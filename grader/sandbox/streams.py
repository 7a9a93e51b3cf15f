"""A streamed call's lazy argument, kept on the trusted side of the wire.

    feed = Feed(position=0, items=lines, take=1)
    outcome = box.call("encode_iterable", [None, vocab, merges, specials], feed=feed)
    outcome.stream.handed_at[0]   # items handed over when the first yielded item arrived

The call's argument at ``position`` is an iterator in the worker whose items stay here until
the call asks for more: each request is answered with the next few items (one, then as many
as were handed so far, up to :data:`MOST_AT_ONCE`), so a call that reads a line at a time is
handed a line at a time. What the function yields comes back on the same pipe as the requests,
sent before each of them, so the order of the two is the order they happened in, and
:class:`StreamTrace` records, for every yielded item, how many items had been handed over when
it arrived. The count is made here, by the grader, from what it sent; the call's own code can
write on that pipe too, but what it writes there is what a generator yielding those items at
that moment would send, and a frame of any other shape ends the call as a bad answer.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from typing import Any

from grader.sandbox import wire
from grader.sandbox.wire import WireError

HEADER = struct.Struct(">I")
MOST_AT_ONCE = 4096  # items in one answer to a request, at most
MOST_BYTES_AT_ONCE = 256 << 10  # and bytes (a single larger item still goes alone)
MAX_TRACE_FRAME = 16 << 20


@dataclass(frozen=True)
class StreamTrace:
    """What one streamed call read and yielded, as the grader saw it: ``items`` available,
    ``handed`` of them handed over in all; ``outputs`` the items it yielded, each with
    ``handed_at`` (how many had been handed over when it arrived); ``yielded_before_end``: how
    many it had yielded when it asked past the last item (None: it never did)."""

    items: int
    handed: int
    yielded_before_end: int | None
    outputs: list = field(default_factory=list)
    handed_at: list = field(default_factory=list)

    @property
    def read_all_first(self) -> bool:
        """Whether the call read every item (and asked for more) before yielding any."""
        return self.yielded_before_end == 0


class Feed:
    """One streamed call's lazy argument: its items, handed over as the call asks for them,
    and what the call yields (see the module docstring). ``take``: stop iterating the
    function's result after this many items."""

    def __init__(self, position: int, items: list, take: int | None = None) -> None:
        if type(position) is not int or position < 0:
            raise ValueError(f"the stream's position must be an argument's index, got {position!r}")
        if take is not None and (type(take) is not int or take < 1):
            raise ValueError(f"take must be a positive number of items, got {take!r}")
        self.position = position
        self.take = take
        self._frames = _frames_of(items)
        self._handed = 0
        self._ended_after: int | None = None
        self._outputs: list = []
        self._handed_at: list[int] = []
        self._pending = bytearray()
        self._received = 0

    def request_field(self) -> dict:
        """The ``stream`` field of the call's request."""
        return {"position": self.position, "take": self.take}

    def trace(self) -> StreamTrace:
        return StreamTrace(len(self._frames), self._handed, self._ended_after,
                           list(self._outputs), list(self._handed_at))

    def received(self, chunk: bytes, bounds: wire.WireBounds) -> bytes:
        """Take bytes read from the call's trace pipe; return what to write on its feed pipe
        (the answers to the requests among them). Raises WireError on a malformed frame."""
        self._received += len(chunk)
        if self._received > bounds.max_bytes + MAX_TRACE_FRAME:
            raise WireError("it sent more on the stream than an answer may hold")
        self._pending += chunk
        answers = bytearray()
        while len(self._pending) >= HEADER.size:
            (size,) = HEADER.unpack_from(self._pending, 0)
            if size > MAX_TRACE_FRAME:
                raise WireError("a frame on the stream is over its size limit")
            if len(self._pending) < HEADER.size + size:
                break
            payload = bytes(self._pending[HEADER.size:HEADER.size + size])
            del self._pending[:HEADER.size + size]
            answers += self._frame(payload, bounds)
        return bytes(answers)

    def _frame(self, payload: bytes, bounds: wire.WireBounds) -> bytes:
        message = wire.parse_json(payload, bounds)
        if message == ["need"]:
            return self._next_items()
        if (type(message) is not list or len(message) != 2 or message[0] != "out"
                or type(message[1]) is not list):
            raise WireError("a frame on the stream is neither a request nor yielded items")
        for tagged in message[1]:
            self._outputs.append(wire.from_tagged(tagged, bounds))
            self._handed_at.append(self._handed)
        if self.take is not None and len(self._outputs) > self.take:
            raise WireError(f"it sent more than the {self.take} yielded items asked for")
        return b""

    def _next_items(self) -> bytes:
        most = 1 if self._handed == 0 else min(self._handed, MOST_AT_ONCE)
        chosen: list[bytes] = []
        size = 0
        for frame in self._frames[self._handed:self._handed + most]:
            if chosen and size + len(frame) > MOST_BYTES_AT_ONCE:
                break
            chosen.append(frame)
            size += len(frame) + 1
        if not chosen and self._ended_after is None:
            self._ended_after = len(self._outputs)
        self._handed += len(chosen)
        payload = b"[" + b",".join(chosen) + b"]"
        return HEADER.pack(len(payload)) + payload


def _frames_of(items: list) -> list[bytes]:
    """Each item's frame; an item repeated as the same object (a line streamed many times)
    is encoded once."""
    items = list(items)  # every item alive until the end, so no two of them share an id()
    encoded: dict[int, bytes] = {}
    frames = []
    for item in items:
        frame = encoded.get(id(item))
        if frame is None:
            frame = encoded[id(item)] = json.dumps(
                wire.to_tagged(item), ensure_ascii=True, allow_nan=False,
                separators=(",", ":")).encode("ascii")
        frames.append(frame)
    return frames
