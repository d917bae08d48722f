"""Pools shared between processes from Python, over the fake driver (suite
fake), whose shared pools live in a memfd that both processes map, so two
real Python processes share bytes:

- a Buffer of pool(kind=device, ipc=fd) put on a multiprocessing queue
  reaches a second (spawned) process as an imported Buffer over the same
  bytes; it releases it and answers, and then the sender frees (the
  importer exits first);
- the other way round: a spawned process exports, this one imports, reads,
  releases and answers; the exporter frees and exits first, and the
  imported pool here holds nothing live;
- errors: an imported pool cannot allocate, a pool without ipc=fd and an
  adaptor over one do not export, an import is not exported again, a
  released Buffer does not export.

Device memory is host memory under the fake, so the bytes are written and
read with ctypes.
"""

import ctypes
import multiprocessing
import os

import pytest

import mrctx
from mrctx import ipc

FAKE = os.environ.get("MRCTX_CUDA_DRIVER", "")
pytestmark = pytest.mark.skipif("fakecuda" not in FAKE,
                                reason="MRCTX_CUDA_DRIVER is not the fake driver")

SIZE = 1 << 16
TIMEOUT = 120  # seconds a queue waits for the other process before the test fails


def _spawn():
    return multiprocessing.get_context("spawn")


def _importer(blocks, replies):
    """Child: take one Buffer, check its bytes, release it, answer."""
    try:
        buf = blocks.get(timeout=TIMEOUT)
        data = ctypes.string_at(buf.ptr, buf.size)
        ok = buf.imported and buf.size == SIZE and data == b"\x5a" * SIZE
        buf.release()
        live = ipc.imports_live(mrctx.imported_pools()[0])
        replies.put("ok" if ok and live == 0 else f"imported={buf.imported} ok={ok} live={live}")
    except BaseException as error:  # the test shows what went wrong
        replies.put(f"{type(error).__name__}: {error}")


def _exporter(blocks, replies):
    """Child: export a filled Buffer, wait for the importer's word, free it,
    check the pool hands out nothing, answer, exit."""
    try:
        pool = mrctx.resolve("pool(kind=device, ipc=fd)")
        buf = mrctx.Buffer(pool, SIZE)
        ctypes.memset(buf.ptr, 0xc3, SIZE)
        blocks.put(buf)
        word = replies.get(timeout=TIMEOUT)
        buf.release()
        used = pool.pool_info()["used_bytes"]
        blocks.put("ok" if word == "released" and used == 0 else f"word={word} used={used}")
    except BaseException as error:
        blocks.put(f"{type(error).__name__}: {error}")


def test_importer_exits_first():
    context = _spawn()
    blocks, replies = context.Queue(), context.Queue()
    pool = mrctx.resolve("pool(kind=device, ipc=fd)")
    buf = mrctx.Buffer(pool, SIZE)
    ctypes.memset(buf.ptr, 0x5a, SIZE)
    child = context.Process(target=_importer, args=(blocks, replies))
    child.start()
    blocks.put(buf)
    assert replies.get(timeout=TIMEOUT) == "ok"
    child.join(TIMEOUT)
    assert child.exitcode == 0
    # The importer released and exited: now the exporter frees.
    buf.release()
    assert pool.pool_info()["used_bytes"] == 0
    pool.close()


def test_exporter_exits_first():
    context = _spawn()
    blocks, replies = context.Queue(), context.Queue()
    child = context.Process(target=_exporter, args=(blocks, replies))
    child.start()
    buf = blocks.get(timeout=TIMEOUT)
    assert isinstance(buf, mrctx.Buffer) and buf.imported
    assert ctypes.string_at(buf.ptr, buf.size) == b"\xc3" * SIZE
    imported = buf.resource
    buf.release()
    replies.put("released")
    assert blocks.get(timeout=TIMEOUT) == "ok"
    child.join(TIMEOUT)
    assert child.exitcode == 0
    # The exporter is gone; nothing is live in the imported pool here.
    assert any(ipc.imports_live(p) == 0 for p in mrctx.imported_pools())
    with pytest.raises(mrctx.ClosedError):
        imported.describe()  # the Buffer's own reference went with it


def test_shared_pool_round_trip_in_one_process():
    pool = mrctx.resolve("pool(kind=device, ipc=fd)")
    shared = pool.export_pool()
    assert shared.fd >= 0 and len(shared.data) == 64
    imported = mrctx.import_pool(shared)
    with pytest.raises(mrctx.ClosedError):
        shared.fd  # import_pool closed the descriptor
    assert mrctx.import_pool(pool.export_pool()) is imported  # once per process
    with pytest.raises(mrctx.UnsupportedError) as info:
        imported.allocate(256)
    assert "an imported pool cannot allocate" in str(info.value)
    buf = mrctx.Buffer(pool, 4096)
    ctypes.memset(buf.ptr, 0x17, 4096)
    other = mrctx.Buffer.import_(buf.export())
    assert ctypes.string_at(other.ptr, 4096) == b"\x17" * 4096
    with pytest.raises(mrctx.StateError):
        other.export()  # only the exporter shares a block
    other.release()
    assert ipc.imports_live(imported) == 0
    buf.release()
    with pytest.raises(mrctx.ClosedError):
        buf.export()
    pool.close()


def test_what_does_not_export():
    plain = mrctx.resolve("pool(kind=device)")
    with pytest.raises(mrctx.UnsupportedError) as info:
        plain.export_pool()
    assert "ipc=fd" in str(info.value)
    with pytest.raises(mrctx.UnsupportedError):
        mrctx.Buffer(plain, 256).export()
    wrapped = mrctx.resolve("stats(pool(kind=device, ipc=fd))")
    with pytest.raises(mrctx.InvalidArgumentError) as info:
        wrapped.export_pool()
    assert "is not a pool resource" in str(info.value)
    with pytest.raises(mrctx.ConfigError) as info:
        mrctx.resolve("pool(kind=pinned, ipc=fd)")
    assert "only device pools can be shared" in str(info.value)
    with pytest.raises(TypeError):
        mrctx.import_pool(3)
    plain.close()
    wrapped.close()


def test_export_from_a_thread_without_a_context_waits_for_the_stream():
    """A multiprocessing queue pickles in its feeder thread, which has no
    current context: the export still waits for the Buffer's stream (the
    legacy stream of the pool's device's context)."""
    import threading

    fake = ctypes.CDLL(FAKE)
    pool = mrctx.resolve("pool(kind=device, ipc=fd)")
    buf = mrctx.Buffer(pool, 4096)
    before = fake.fake_cuda_calls(b"cuStreamSynchronize")
    shared = []
    thread = threading.Thread(target=lambda: shared.append(buf.export()))
    thread.start()
    thread.join()
    assert len(shared) == 1
    assert fake.fake_cuda_calls(b"cuStreamSynchronize") > before
    shared[0].pool.close()
    buf.release()
    pool.close()
