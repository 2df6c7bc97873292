"""A small TCP proxy of our own in front of a broker's HA port (``--cut``): each broker advertises the proxy's address
as its HA address (``Node.java``: ``autoswitchHaAddress``), so a slave's replication connection to its master runs
through the master's proxy. ``hold()`` stops moving bytes both ways (the connections stay open, the bytes wait in the
sockets' buffers and TCP's flow control stops the senders: the model's ``PartitionLink`` without ``lost``); ``release()``
moves them again (``HealLink``). Threads of this process, so nothing outlives the command."""

from __future__ import annotations

import selectors
import socket
import threading
import time

BUFFER = 65536


class LinkProxy:
    """Forwards every connection accepted on ``127.0.0.1:listen`` to ``127.0.0.1:target``."""

    def __init__(self, listen: int, target: int):
        self.listen, self.target = listen, target
        self.held = threading.Event()
        self.closed = threading.Event()
        self.moved = 0  # bytes forwarded, both ways
        self.connections = 0  # accepted
        self._server = socket.create_server(("127.0.0.1", listen))
        self._server.settimeout(0.2)
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._accept, name=f"proxy-{listen}-accept", daemon=True),
                         threading.Thread(target=self._pump, name=f"proxy-{listen}-pump", daemon=True)]
        for thread in self._threads:
            thread.start()

    def hold(self) -> None:
        self.held.set()

    def release(self) -> None:
        self.held.clear()

    def close(self) -> None:
        self.closed.set()
        for thread in self._threads:
            thread.join(2)
        self._server.close()
        with self._lock:
            for pair in self._pairs:
                for end in pair:
                    end.close()
            self._pairs.clear()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self._server.accept()
            except (TimeoutError, OSError):
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=3)
            except OSError:
                client.close()  # the broker behind is down: as a refused connection
                continue
            for end in (client, upstream):
                end.setblocking(False)
            with self._lock:
                self._pairs.append((client, upstream))
                self.connections += 1

    def _pump(self) -> None:
        while not self.closed.is_set():
            if self.held.is_set():
                self.closed.wait(0.05)
                continue
            with self._lock:
                pairs = list(self._pairs)
            if not pairs:
                self.closed.wait(0.05)
                continue
            selector = selectors.DefaultSelector()
            for a, b in pairs:
                selector.register(a, selectors.EVENT_READ, (a, b))
                selector.register(b, selectors.EVENT_READ, (b, a))
            for key, _ in selector.select(0.05):
                source, sink = key.data
                if self.held.is_set():
                    break
                self._move(source, sink)
            selector.close()

    def _move(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            data = source.recv(BUFFER)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            self.moved += len(data)  # counted first: the other side may read it before this thread runs again
            try:
                self._send(sink, data)
                return
            except OSError:
                pass
        self._drop(source)

    @staticmethod
    def _send(sink: socket.socket, data: bytes) -> None:
        """All of ``data`` to a non-blocking socket, waiting while its buffer is full."""
        view = memoryview(data)
        while view:
            try:
                sent = sink.send(view)
            except BlockingIOError:
                time.sleep(0.005)
                continue
            view = view[sent:]

    def _drop(self, end: socket.socket) -> None:
        """One end closed or failed: close the pair (the other side sees the connection end)."""
        with self._lock:
            for pair in [p for p in self._pairs if end in p]:
                self._pairs.remove(pair)
                for other in pair:
                    other.close()
