#!/usr/bin/env python3
"""Run the built mrctx command and check what it prints.

usage: check_mrctx.py MODE MRCTX [VERSION]
  cli        help, version and usage errors (no driver needed)
  no-driver  `mrctx info` where the driver cannot be loaded: one line, exit 0
  fake-info  `mrctx info` over the fake driver (MRCTX_CUDA_DRIVER set)
"""
import json
import os
import subprocess
import sys

failures = []
passed = 0


def run(mrctx, *args, env=None):
    merged = dict(os.environ)
    merged.update(env or {})
    p = subprocess.run([mrctx, *args], capture_output=True, text=True, env=merged, timeout=60)
    return p.returncode, p.stdout, p.stderr


def expect(condition, what, output=""):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what + ("\n--- output ---\n" + output if output else ""))


def check_cli(mrctx, version):
    rc, out, err = run(mrctx, "--help")
    expect(rc == 0 and "usage: mrctx VERB" in out and "info" in out, "--help lists the verbs", out + err)
    rc, out, err = run(mrctx, "help")
    expect(rc == 0 and "usage: mrctx VERB" in out, "help alone prints the usage", out + err)
    for args in (["help", "info"], ["info", "--help"], ["info", "-h"]):
        rc, out, err = run(mrctx, *args)
        expect(rc == 0 and out.startswith("usage: mrctx info"), " ".join(args) + " prints info's help", out + err)
    rc, out, err = run(mrctx, "--version")
    expect(rc == 0 and out == "mrctx %s\n" % version, "--version prints the version", out + err)
    rc, out, err = run(mrctx)
    expect(rc == 2 and "usage: mrctx VERB" in err, "no verb: usage on stderr, exit 2", out + err)
    for args, message in ((["frobnicate"], "unknown verb 'frobnicate'"),
                          (["help", "frobnicate"], "unknown verb 'frobnicate'"),
                          (["--bogus"], "unknown option '--bogus'"),
                          (["info", "--bogus"], "unknown argument '--bogus'")):
        rc, out, err = run(mrctx, *args)
        expect(rc == 2 and message in err and out == "", " ".join(args) + ": exit 2 saying " + message, out + err)


def check_no_driver(mrctx, library):
    for args in (["info"], ["info", "--json"]):
        rc, out, err = run(mrctx, *args)
        expect(rc == 0, " ".join(args) + " without a driver exits 0", out + err)
        expect(out.count("\n") == 1 and err == "", " ".join(args) + " without a driver prints one line", out + err)
        expect(library in out, " ".join(args) + " names why: " + library, out + err)
    rc, out, err = run(mrctx, "info", "--json")
    try:
        expect("error" in json.loads(out), "--json without a driver has an error field", out)
    except ValueError as e:
        expect(False, "--json without a driver is JSON: %s" % e, out)


def check_fake_info(mrctx):
    rc, out, err = run(mrctx, "info")
    expect(rc == 0 and err == "", "info over the fake driver exits 0 quietly", out + err)
    lines = out.splitlines()
    expect("CUDA driver: 13.0" in lines, "the driver version", out)
    expect("devices: 4" in lines, "four devices", out)
    for d in range(4):
        expect("device %d: Fake CUDA Device %d" % (d, d) in lines, "device %d's name" % d, out)
    def field(name, value):
        return "  %-27s %s" % (name + ":", value)
    for name, value in (("total memory", "16 GiB"), ("compute capability", "9.0"),
                        ("memory pools", "yes"), ("host memory pools", "yes"),
                        ("managed memory", "yes"), ("concurrent managed access", "yes"),
                        ("current pool", "the default pool")):
        expect(lines.count(field(name, value)) == 4, "every device shows " + name + " " + value, out)
    # Nothing was allocated, and reading did not raise any threshold.
    untouched = "release threshold 0 B, reserved 0 B (peak 0 B), used 0 B (peak 0 B)"
    expect(lines.count(field("default pool", untouched)) == 4, "every default pool untouched", out)
    expect(field("pinned default pool", untouched) in lines, "the pinned default pool", out)
    expect(field("managed default pool", untouched) in lines, "the managed default pool", out)

    rc, out, err = run(mrctx, "info", "--json")
    try:
        info = json.loads(out)
        expect(rc == 0 and info["driver_version"] == 13000 and len(info["devices"]) == 4,
               "--json: version and devices", out)
        for d in info["devices"]:
            expect(d["available"] and d["current_pool"]["is_default"] and
                   d["default_pool"]["release_threshold"] == 0 and d["total_memory"] == 16 << 30,
                   "--json: device %d" % d["device"], out)
        expect(info["pinned_default_pool"]["kind"] == "pinned", "--json: pinned pool", out)
        expect(info["managed_default_pool"]["kind"] == "managed", "--json: managed pool", out)
    except (ValueError, KeyError, TypeError) as e:
        expect(False, "--json over the fake driver: %r" % e, out)

    rc, out, err = run(mrctx, "info", env={"FAKECUDA_DEVICES": "2"})
    expect(rc == 0 and "devices: 2" in out.splitlines() and "device 2:" not in out,
           "two fake devices", out + err)
    rc, out, err = run(mrctx, "info", env={"FAKECUDA_DEVICES": "0"})
    expect(rc == 0 and out == "mrctx info: the CUDA driver found no device "
           "(cuInit: CUDA_ERROR_NO_DEVICE)\n", "no device: one line, exit 0", out + err)


def main():
    mode, mrctx = sys.argv[1], sys.argv[2]
    if mode == "cli":
        check_cli(mrctx, sys.argv[3])
    elif mode == "no-driver":
        check_no_driver(mrctx, sys.argv[3])
    elif mode == "fake-info":
        check_fake_info(mrctx)
    else:
        sys.exit("unknown mode " + mode)
    for f in failures:
        print("FAILED: " + f, file=sys.stderr)
    print("%d passed, %d failed" % (passed, len(failures)))
    sys.exit(1 if failures else 0)


main()
