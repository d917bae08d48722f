#!/usr/bin/env python3
"""What the mrctx command's writers do to the path they are pointed at:
`export -o`, `replay --json` and `plot --svg` (lib/core/file_write.h,
docs/observability.md "What an output path may name").

For each writer: a FIFO with a reader gets the output and stays a FIFO; a
FIFO with no reader is an error at once, not a hang; a symbolic link to a
file is refused and its target left as it was; a character device (made
with mknod, as root; skipped, and said so, otherwise) is written to and
stays a device, even when the command fails; an output that is one of the
inputs is refused and the input left intact; a failed run (one bad input
among several) leaves the file that was at the path, and nothing beside it.

usage: check_outputs.py MRCTX SOURCE_DIR
"""
import os
import select
import stat
import subprocess
import sys
import tempfile
import threading

failures = []
passed = 0


def expect(condition, what, output=""):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what + ("\n--- output ---\n" + output if output else ""))


def run(mrctx, *args):
    # The timeout is a guard against a hang (a FIFO waited on), not a wait:
    # a command that waits fails the check.
    # No MALLOC_PERTURB_ (meson sets a random one): glibc would then fill
    # each block the replay's host spec allocates, the log's 4 GiB one too,
    # and a slow machine would take minutes over it.
    env = dict(os.environ, MALLOC_PERTURB_="0")
    try:
        p = subprocess.run([mrctx, *args], capture_output=True, text=True, timeout=60, env=env)
    except subprocess.TimeoutExpired:
        return 124, "", "mrctx %s: still running after 60 s (it waited), killed" % args[0]
    return p.returncode, p.stdout, p.stderr


class FifoReader:
    """Reads a FIFO on a thread from before the command starts (the read end
    is open, so a writer that does not wait finds a reader) until the
    writers have gone."""

    def __init__(self, path):
        self.path = path
        self.fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self.data = b""
        self.thread = threading.Thread(target=self._read)
        self.thread.start()

    def _read(self):
        while True:
            # Readable when data comes or the writers have gone (Linux tells
            # the latter only once a writer has come since the open).
            select.select([self.fd], [], [])
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                return
            self.data += chunk

    def finish(self):
        """What arrived, once the command is done. Comes and goes as a writer
        first, so a command that never opened the FIFO gives b"" instead of
        leaving the reader waiting."""
        try:
            os.close(os.open(self.path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        self.thread.join()
        os.close(self.fd)
        return self.data


def make_null_device(path):
    """A character device like /dev/null at `path`, or False (said) when not
    root."""
    if os.geteuid() != 0:
        print("skipped: a character device needs mknod, which needs root")
        return False
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return True


def listing(folder):
    return sorted(os.listdir(folder))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def writers(data):
    """(name, argument list for an output path and inputs, its good inputs,
    a bad input, whether it takes several inputs, what its output begins
    with)."""
    log = os.path.join(data, "rmm-format.csv")
    threads = os.path.join(data, "threads.csv")
    return [
        ("export", lambda out, inputs: ["export", "--format", "perfetto", "-o", out, *inputs],
         [log, threads], b"{"),
        ("replay", lambda out, inputs: ["replay", *inputs, "--spec", "host", "--json", out],
         [log], b"{"),
        ("plot", lambda out, inputs: ["plot", "--svg", out, *inputs], [log, threads], b"<?xml"),
    ]


def check_writer(mrctx, folder, name, argv, inputs, begins):
    work = os.path.join(folder, name)
    os.mkdir(work)
    good = [os.path.join(work, "in-%d.csv" % i) for i in range(len(inputs))]
    for source, copy in zip(inputs, good):
        with open(copy, "wb") as f:
            f.write(read(source))
    bad = os.path.join(work, "bad.csv")
    with open(bad, "w") as f:
        f.write("this is not a log\n")
    several = good + [bad] if name != "replay" else [bad]
    inputs_kept = [read(p) for p in good]

    # A FIFO with a reader: the output arrives, and the FIFO stays.
    fifo = os.path.join(work, "out.fifo")
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    rc, out, err = run(mrctx, *argv(fifo, good))
    got = reader.finish()
    expect(rc == 0 and got.startswith(begins),
           "%s into a FIFO with a reader: written (%d bytes)" % (name, len(got)), err)
    expect(stat.S_ISFIFO(os.lstat(fifo).st_mode), "%s: the FIFO is still a FIFO" % name)

    # A FIFO with no reader: an error at once (the timeout would end a hang).
    rc, out, err = run(mrctx, *argv(fifo, good))
    expect(rc != 0 and "it is a FIFO with no reader" in err,
           "%s into a FIFO with no reader: refused at once" % name, err)
    expect(stat.S_ISFIFO(os.lstat(fifo).st_mode), "%s: that FIFO stays too" % name)
    os.unlink(fifo)

    # A symbolic link to a file: refused, the file and the link as they were.
    victim = os.path.join(work, "victim")
    with open(victim, "w") as f:
        f.write("the victim's data\n")
    link = os.path.join(work, "out.link")
    os.symlink(victim, link)
    rc, out, err = run(mrctx, *argv(link, good))
    expect(rc != 0 and "it is a symbolic link to a regular file" in err,
           "%s through a symbolic link: refused" % name, err)
    expect(read(victim) == b"the victim's data\n", "%s: the link's target is untouched" % name)
    expect(os.path.islink(link), "%s: the link is still a link" % name)
    os.unlink(link)
    os.unlink(victim)

    # The output is one of the inputs: refused, the input intact.
    rc, out, err = run(mrctx, *argv(good[-1], good))
    expect(rc != 0 and "it is the input" in err, "%s -o INPUT: refused" % name, err)
    expect([read(p) for p in good] == inputs_kept, "%s -o INPUT: the inputs are intact" % name)

    # A run that fails (a bad input among the good ones) keeps the previous
    # output, and leaves nothing beside it.
    target = os.path.join(work, "out")
    rc, out, err = run(mrctx, *argv(target, good))
    expect(rc == 0 and read(target).startswith(begins), "%s: a good run writes" % name, err)
    previous = read(target)
    before = listing(work)
    rc, out, err = run(mrctx, *argv(target, several))
    expect(rc != 0, "%s with a bad input fails" % name, out + err)
    expect(os.path.exists(target) and read(target) == previous,
           "%s with a bad input: the earlier output is kept" % name)
    expect(listing(work) == before, "%s: nothing left beside the output" % name,
           str(listing(work)))

    # A character device: written to, and still a device after a failed run.
    device = os.path.join(work, "null")
    if make_null_device(device):
        rc, out, err = run(mrctx, *argv(device, good))
        expect(rc == 0, "%s into a character device" % name, err)
        rc, out, err = run(mrctx, *argv(device, several))
        expect(rc != 0, "%s into a character device with a bad input fails" % name, out + err)
        expect(stat.S_ISCHR(os.lstat(device).st_mode),
               "%s: the character device is still one" % name)
        os.unlink(device)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    mrctx, source = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as folder:
        for name, argv, inputs, begins in writers(source):
            check_writer(mrctx, folder, name, argv, inputs, begins)
    for f in failures:
        print("FAIL:", f)
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
