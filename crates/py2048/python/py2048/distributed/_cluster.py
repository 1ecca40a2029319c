"""The Ray plumbing of a distributed run: the check that a cluster's address
answers as a Ray head, the session, one line per lost worker, the weights
file on its way to the nodes, the game task and the tables built once per
node."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from py2048 import _native

if TYPE_CHECKING:
    from py2048.distributed._player import Player


def _ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise ImportError(
            'py2048.distributed needs Ray: pip install "py2048[ray]"'
        ) from e
    return ray


# The opening of an HTTP/2 connection (RFC 9113: the client preface, then an
# empty SETTINGS frame). A Ray head's port speaks gRPC, which answers with a
# SETTINGS frame of its own (frame type 4, the fourth byte of its header).
_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])

# Every node's ports speak gRPC, a raylet's too: what tells the head is
# that its GCS knows this call (the one a joining node makes first). Any
# other gRPC server answers UNIMPLEMENTED at once, where Ray's own client
# would retry for many seconds and then blame the auth token.
_GCS_PROBE = "/ray.rpc.NodeInfoGcsService/GetClusterId"
_GRPC_UNIMPLEMENTED = 12


def _frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    """One HTTP/2 frame (RFC 9113, section 4.1)."""
    return len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big") + payload


def _hpack_literal(name: str, value: str) -> bytes:
    """A header "without indexing", its strings as they are (RFC 7541,
    section 6.2.2); both shorter than 127 bytes."""
    n, v = name.encode(), value.encode()
    return bytes([0, len(n)]) + n + bytes([len(v)]) + v


def _hpack_int(block: bytes, at: int, bits: int) -> tuple[int, int]:
    """An integer of an ``bits``-bit prefix at ``block[at]`` (RFC 7541,
    section 5.1) and where the next field starts."""
    mask = (1 << bits) - 1
    value, at = block[at] & mask, at + 1
    shift = 0
    if value == mask:
        while True:
            byte, at = block[at], at + 1
            value += (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
    return value, at


def _hpack_string(block: bytes, at: int) -> tuple[str | None, int]:
    """A string literal, or ``None`` when it is Huffman-coded (gRPC's C++
    servers, Ray's, send their header strings as they are)."""
    huffman = bool(block[at] & 0x80)
    length, at = _hpack_int(block, at, 7)
    raw = block[at : at + length]
    return (None if huffman else raw.decode("latin-1")), at + length


def _hpack_headers(block: bytes, table: list[tuple[str | None, str | None]]) -> dict[str, str]:
    """The headers of an HPACK block whose names and values this reader can
    read (only what a status needs: no Huffman, no static table's names);
    ``table`` is the connection's dynamic table, updated."""
    headers: dict[str, str] = {}
    at = 0
    while at < len(block):
        byte = block[at]
        if byte & 0x80:  # indexed: a static entry (no gRPC header) or a dynamic one
            index, at = _hpack_int(block, at, 7)
            name, value = table[index - 62] if 62 <= index < 62 + len(table) else (None, None)
        elif byte & 0xE0 == 0x20:  # a dynamic table size update
            _, at = _hpack_int(block, at, 5)
            continue
        else:
            indexing = byte & 0xC0 == 0x40
            index, at = _hpack_int(block, at, 6 if indexing else 4)
            if index == 0:
                name, at = _hpack_string(block, at)
            else:
                name = table[index - 62][0] if 62 <= index < 62 + len(table) else None
            value, at = _hpack_string(block, at)
            if indexing:
                table.insert(0, (name, value))
        if name is not None and value is not None:
            headers[name] = value
    return headers


def _gcs_answers(conn: socket.socket, authority: str) -> bool:
    """Whether the gRPC server on ``conn`` (its SETTINGS read) is a Ray
    head's GCS: ``False`` only when it says it has no such call; a reply,
    a refusal (an auth token it wants) or silence are the GCS's or Ray's
    own to explain."""
    headers = b"".join(
        _hpack_literal(k, v) for k, v in [
            (":method", "POST"), (":scheme", "http"), (":path", _GCS_PROBE),
            (":authority", authority), ("content-type", "application/grpc"), ("te", "trailers"),
        ]
    )
    # The SETTINGS acknowledged, then one call: an empty request message.
    conn.sendall(
        _frame(4, 1, 0) + _frame(1, 4, 1, headers) + _frame(0, 1, 1, bytes(5))
    )
    table: list[tuple[str | None, str | None]] = []
    pending = b""
    block = b""
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return True
        pending += chunk
        while len(pending) >= 9:
            length = int.from_bytes(pending[:3], "big")
            if len(pending) < 9 + length:
                break
            kind, flags = pending[3], pending[4]
            stream = int.from_bytes(pending[5:9], "big") & 0x7FFF_FFFF
            payload, pending = pending[9 : 9 + length], pending[9 + length :]
            if stream != 1:
                continue
            if kind == 0:  # a reply's message: the call exists
                return True
            if kind == 3:  # the stream reset: no status to read
                return True
            if kind in (1, 9):  # HEADERS, CONTINUATION
                if kind == 1:
                    pad = payload[0] if flags & 0x8 else 0
                    skip = (1 if flags & 0x8 else 0) + (5 if flags & 0x20 else 0)
                    payload = payload[skip : len(payload) - pad]
                block += payload
                if not flags & 0x4:  # END_HEADERS not yet
                    continue
                status = _hpack_headers(block, table).get("grpc-status")
                block = b""
                if status is not None:
                    return status != str(_GRPC_UNIMPLEMENTED)


def _check_address(address: str | None, timeout: float) -> None:
    """A ``ConnectionError`` naming the address, within seconds, when the
    cluster a call would join (``address``, or ``RAY_ADDRESS`` where Ray
    reads it) does not answer as a Ray head does; nothing when this process
    is connected already or Ray finds or starts a cluster itself. The
    address has ``timeout`` seconds to answer."""
    if not (address is None or isinstance(address, str)):
        raise TypeError(f"address must be a str, got {type(address).__name__}")
    if _ray().is_initialized():
        return
    target, named = address, f"address={address!r}"
    if address in (None, "auto") and os.environ.get("RAY_ADDRESS"):
        target = os.environ["RAY_ADDRESS"]
        named = f"RAY_ADDRESS={target!r}"
    if target is None or target in ("auto", "local"):
        return
    host, colon, port = target.removeprefix("ray://").rpartition(":")
    if not colon or not host or not port.isdigit():
        return  # Ray refuses a malformed address at once, with its own message
    host, port_number = host.strip("[]"), int(port)
    reply = b""
    gcs = False
    try:
        with socket.create_connection((host, port_number), timeout=timeout) as conn:
            # Under TLS the first bytes are a TLS handshake's: an open port
            # is all that can be checked without Ray's certificates.
            if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
                return
            conn.settimeout(timeout)
            conn.sendall(_HTTP2_PREFACE)
            while len(reply) < 9:
                chunk = conn.recv(9 - len(reply))
                if not chunk:
                    break
                reply += chunk
            if len(reply) == 9 and reply[3] == 4:
                # The SETTINGS frame's payload, then the call.
                rest = int.from_bytes(reply[:3], "big")
                while rest > 0:
                    chunk = conn.recv(rest)
                    if not chunk:
                        break
                    rest -= len(chunk)
                try:
                    gcs = _gcs_answers(conn, f"{host}:{port_number}")
                except (OSError, IndexError, UnicodeError):
                    gcs = True  # no verdict: Ray's own attempt explains what goes wrong
    except socket.gaierror:
        reason = f"no host is named {host!r}"
    except ConnectionRefusedError:
        reason = f"nothing listens on port {port_number} of {host}"
    except TimeoutError:
        reason = f"no answer within {timeout:.0f} s"
    except OSError as e:
        reason = e.strerror or str(e)
    else:
        if len(reply) == 9 and reply[3] == 4 and gcs:
            return
        what = "a gRPC server answers there" if len(reply) == 9 and reply[3] == 4 else (
            "something answers there"
        )
        reason = (
            f"{what}, but not a Ray head (the address is the head's `ray start --head"
            " --port`, 6379 unless given; a node's other ports and the dashboard's 8265"
            " are not it)"
        )
    raise ConnectionError(f"cannot reach a Ray cluster at {named}: {reason}")


@contextlib.contextmanager
def _session(address: str | None) -> Iterator[Any]:
    """Ray, connected: to a running session as it is, else started (or
    joined at ``address``) for the call and shut down after it."""
    ray = _ray()
    if ray.is_initialized():
        yield ray
        return
    try:
        if address is None:
            ray.init(include_dashboard=False, log_to_driver=True)
        else:
            ray.init(address=address, log_to_driver=True)
    except ConnectionError as e:
        named = address if address not in (None, "auto") else os.environ.get("RAY_ADDRESS")
        if not named:
            raise  # no cluster found on this machine: Ray's message says so
        # A head that answers (_check_address saw it) but refuses the
        # driver asks for a token.
        raise ConnectionError(
            f"cannot join the Ray cluster at {named}: {e} (a head started with"
            " RAY_AUTH_MODE=token admits only drivers that say RAY_AUTH_MODE=token and hold"
            " its token)"
        ) from e
    try:
        yield ray
    finally:
        ray.shutdown()


class _LostWorkers:
    """One line on stderr for each worker process or node that Ray reports
    lost during a run, in place of Ray's reports: a killed node makes each
    of its agents send every driver the raylet's last 20 log lines (dozens
    of lines), a killed worker two long lines. Ray plays the lost games
    again (``max_retries``), and the line says so.

    Ray has no public hook for these messages: the filter wraps the function
    its listener thread prints them with, and lets every other message
    through, and every message while no run is on. A Ray without that
    function prints its own reports."""

    _lock = threading.Lock()
    _runs = 0
    _seen: set[str] = set()
    _installed = False

    # "[2026-11-27 21:14:34,302 I 15231 15231] (raylet) ...": the lost
    # raylet's process id, in the log lines of Ray's report.
    _NODE = re.compile(
        r"Raylet is terminated\. Termination is unexpected\."
        r"(?:.*?\[[^\]]* [A-Z] (\d+) \d+\] \(raylet\))?",
        re.S,
    )
    _WORKER = re.compile(
        r"A worker died or was killed while executing a task by an unexpected system error\..*?"
        r"Worker IP address: (\S+) .*?Worker PID: (\d+)", re.S
    )
    # What Ray says besides, of a game or a table build it plays again.
    _RETRIED = re.compile(
        r"Task (?:_play|_open_tables) failed\. There are \d+ retries remaining,"
        r" so the task will be retried\."
    )

    @classmethod
    @contextlib.contextmanager
    def reported(cls) -> Iterator[None]:
        with cls._lock:
            cls._install()
            cls._runs += 1
        try:
            yield
        finally:
            with cls._lock:
                cls._runs -= 1
                if not cls._runs:
                    cls._seen.clear()

    @classmethod
    def _install(cls) -> None:
        if cls._installed:
            return
        try:
            from ray._private import worker as ray_worker
        except ImportError:
            return
        original = getattr(ray_worker, "print_to_stdstream", None)
        if original is None:
            return

        def print_to_stdstream(data: Any, *args: Any, **kwargs: Any) -> Any:
            if not cls._swallowed(data):
                return original(data, *args, **kwargs)
            return None

        ray_worker.print_to_stdstream = print_to_stdstream
        cls._installed = True

    @classmethod
    def _swallowed(cls, data: Any) -> bool:
        """Whether ``data`` is one of Ray's reports of a lost worker or node
        during a run (then the line is written here, once for each)."""
        if not cls._runs or not isinstance(data, dict) or data.get("pid") != "raylet":
            return False
        text = "".join(str(line) for line in data.get("lines") or [])
        if cls._RETRIED.match(text):
            return True
        if node := cls._NODE.match(text):
            key = f"node {node.group(1) or text}"
            line = (
                "lost a Ray node (its raylet ended unexpectedly: killed, out of memory or"
                " crashed); the games it was playing are played again on the others"
            )
        elif worker := cls._WORKER.match(text):
            key = f"worker {worker.group(1)} {worker.group(2)}"
            line = (
                f"lost a Ray worker (process {worker.group(2)} on {worker.group(1)}: killed, out"
                " of memory or crashed); its game is played again"
            )
        else:
            return False
        with cls._lock:
            if key in cls._seen:
                return True
            cls._seen.add(key)
        start = "\r\x1b[2K" if sys.stderr.isatty() else ""
        sys.stderr.write(f"{start}py2048: {line}\n")
        sys.stderr.flush()
        return True


class _Shipped(NamedTuple):
    """A weights file on its way to the workers: its digest, and its bytes
    in the object store (inside a list, so that Ray hands the task the
    reference, not 50 MB per game)."""

    digest: str
    name: str
    ref: list[Any]


def _ship(ray: Any, path: str | None) -> _Shipped | None:
    if path is None:
        return None
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"the learned network's weights file {path} does not exist: pass weights= an existing"
            " weights file (lab export-weights writes one)"
        )
    data = Path(path).read_bytes()
    return _Shipped(hashlib.sha256(data).hexdigest(), Path(path).name, [ray.put(data)])


def _local_weights(shipped: _Shipped | None) -> str | None:
    """The shipped weights' path on this node: written once per node (by
    whichever worker comes first; a temporary name, then a rename) into a
    folder of this user's alone, and checked against the digest whenever a
    process takes it up."""
    if shipped is None:
        return None
    folder = Path(tempfile.gettempdir()) / f"py2048-weights-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    if folder.stat().st_uid != os.getuid() or folder.stat().st_mode & 0o077:
        raise PermissionError(f"{folder} is not this user's alone: remove it")
    path = folder / f"{shipped.digest[:32]}-{shipped.name}"
    if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == shipped.digest:
        return str(path)
    data = _ray().get(shipped.ref[0])
    if hashlib.sha256(data).hexdigest() != shipped.digest:
        raise RuntimeError("the weights file changed on its way to this node")
    part = folder / f".{path.name}.{os.getpid()}.part"
    part.write_bytes(data)
    os.replace(part, path)
    return str(path)


#: A worker process's native players, by player and weights digest: each
#: is built once (its network loaded, its tables read) for every game the
#: process plays; two at most (a comparison's two sides).
_PLAYERS: dict[tuple[Player, str | None], Any] = {}


def _play(player: Player, shipped: _Shipped | None, seed: int, max_moves: int | None) -> tuple:
    """One game on a worker (a Ray task)."""
    key = (player, None if shipped is None else shipped.digest)
    native = _PLAYERS.get(key)
    if native is None:
        if len(_PLAYERS) >= 2:
            _PLAYERS.clear()
        native = _PLAYERS[key] = player._native(_local_weights(shipped))
    return native.play(seed, max_moves)


@functools.lru_cache(maxsize=1)
def _remote() -> Any:
    # Retried on a worker or node that dies; a Python error (bad settings
    # on that node) is not retried.
    return _ray().remote(max_retries=5, retry_exceptions=False)(_play)


def _open_tables(path: str | None, max_states: int | None, preset: str) -> int:
    """Reads, or builds, a preset's endgame tables in this node's folder (a
    Ray task); their count."""
    return int(_native.EndgameTables(path, max_states, preset).count)


def _prepare_tables(ray: Any, players: list[Player]) -> None:
    """Has each node's tables built before any game starts, by one task
    pinned to each node: otherwise every worker process of a node would find
    them missing at once and build them side by side (a minute and 1.2 GB
    each)."""
    wanted = {(p.tables, p.tables_max_states, p.tables_preset) for p in players if p.endgame}
    if not wanted:
        return
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    build = ray.remote(max_retries=2)(_open_tables)
    # A node without CPUs plays no game, and a task pinned there would wait
    # for ever.
    nodes = [
        n["NodeID"] for n in ray.nodes() if n.get("Alive") and n["Resources"].get("CPU", 0) >= 1
    ]
    tasks = [
        build.options(
            num_cpus=1, scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)
        ).remote(path, max_states, preset)
        for node in nodes
        for path, max_states, preset in wanted
    ]
    ray.get(tasks)
