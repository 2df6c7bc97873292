"""The link proxy (``--cut``): bytes pass both ways, stop while held (the connection stays open) and the held bytes
arrive after the release; a connection's end reaches the other side."""

from __future__ import annotations

import socket
import threading

from autoswitch.conformance.cluster.procs import free_ports
from autoswitch.conformance.cluster.proxy import LinkProxy


def _echo_server() -> tuple[socket.socket, int]:
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=lambda c=conn: [c.sendall(d) for d in iter(lambda: c.recv(4096), b"")] and c.close(),
                             daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return server, server.getsockname()[1]


def test_held_bytes_wait_and_arrive_after_the_release() -> None:
    server, port = _echo_server()
    proxy = LinkProxy(free_ports(1)[0], port)
    try:
        client = socket.create_connection(("127.0.0.1", proxy.listen), timeout=5)
        client.sendall(b"before")
        assert client.recv(100) == b"before"
        proxy.hold()
        client.sendall(b"held")
        client.settimeout(0.8)
        try:
            early = client.recv(100)
        except TimeoutError:
            early = b""
        assert early == b"", "bytes moved while the link was held"
        proxy.release()
        client.settimeout(5)
        assert client.recv(100) == b"held"
        assert proxy.connections == 1 and proxy.moved == 2 * len(b"beforeheld")
        client.close()
    finally:
        proxy.close()
        server.close()


def test_a_connection_to_a_broker_that_is_down_is_closed_at_once() -> None:
    down = free_ports(1)[0]
    proxy = LinkProxy(free_ports(1)[0], down)
    try:
        client = socket.create_connection(("127.0.0.1", proxy.listen), timeout=5)
        assert client.recv(100) == b""  # closed by the proxy: nothing listens behind it
    finally:
        proxy.close()
