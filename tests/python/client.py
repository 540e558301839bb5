#!/usr/bin/python3
"""A small Glovebox client in Python, using the generated code in proto/python and Debian's python3-grpcio.

It connects to glovebox-broker, opens a session on a guest, takes a screenshot (checking the PNG signature and
that the IHDR size matches what the broker reported), finds a window by its title, types the text read from
standard input into it, presses Return, closes the session and prints a JSON summary on stdout. It never
prints the text. Run with PYTHONPATH=proto/python; python_test.go runs it against a real broker and agent.
"""

import argparse
import json
import struct
import sys
import time

import grpc

from glovebox.agent.v1 import act_pb2, common_pb2, observe_pb2
from glovebox.broker.v1 import computer_pb2, computer_pb2_grpc, session_pb2, session_pb2_grpc

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TIMEOUT = 30  # seconds per call


def fail(msg):
    print("client.py: " + msg, file=sys.stderr)
    sys.exit(1)


def png_size(data):
    """Width and height from a PNG's IHDR chunk."""
    if data[:8] != PNG_SIGNATURE:
        fail("screenshot is not a PNG: starts with %r" % data[:8])
    if data[12:16] != b"IHDR":
        fail("PNG without IHDR first")
    return struct.unpack(">II", data[16:24])


def find_window(computer, session_id, title, deadline):
    while True:
        resp = computer.ListWindows(
            computer_pb2.ListWindowsRequest(session_id=session_id, request=observe_pb2.ListWindowsRequest()),
            timeout=TIMEOUT)
        for w in resp.response.windows:
            if w.title == title:
                return w.id
        if time.monotonic() > deadline:
            fail("no window titled %r among %r" % (title, [w.title for w in resp.response.windows]))
        time.sleep(0.1)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--broker", required=True, help="broker endpoint, unix:///path")
    p.add_argument("--guest", required=True)
    p.add_argument("--window-title", required=True)
    args = p.parse_args()
    text = sys.stdin.read()

    channel = grpc.insecure_channel(args.broker)
    grpc.channel_ready_future(channel).result(timeout=TIMEOUT)
    sessions = session_pb2_grpc.SessionServiceStub(channel)
    computer = computer_pb2_grpc.ComputerServiceStub(channel)

    session = sessions.CreateSession(
        session_pb2.CreateSessionRequest(guest=args.guest, label="python client"), timeout=TIMEOUT).session
    summary = {"session": session.id}

    shot = computer.CaptureScreenshot(
        computer_pb2.CaptureScreenshotRequest(session_id=session.id, request=observe_pb2.CaptureScreenshotRequest()),
        timeout=TIMEOUT)
    img = shot.response.image
    if img.format != common_pb2.IMAGE_FORMAT_PNG:
        fail("screenshot format %s, want PNG" % common_pb2.ImageFormat.Name(img.format))
    width, height = png_size(img.data)
    if (width, height) != (img.width, img.height):
        fail("PNG is %dx%d, the response says %dx%d" % (width, height, img.width, img.height))
    summary.update(width=width, height=height, png_bytes=len(img.data), screenshot_audit_seq=shot.audit_seq)

    window = find_window(computer, session.id, args.window_title, time.monotonic() + 10)
    target = common_pb2.Target(window=common_pb2.WindowTarget(window_id=window))
    typed = computer.Act(computer_pb2.ActRequest(session_id=session.id, request=act_pb2.ActRequest(
        target=target, type=act_pb2.TypeText(text=text))), timeout=TIMEOUT)
    if typed.response.target.window_id != window:
        fail("typed into window %d, asked for %d" % (typed.response.target.window_id, window))
    summary.update(window=window, characters_typed=typed.response.characters_typed,
                   target_source=common_pb2.TargetSource.Name(typed.response.target.source),
                   type_audit_seq=typed.audit_seq)

    computer.Act(computer_pb2.ActRequest(session_id=session.id, request=act_pb2.ActRequest(
        target=target, key=act_pb2.Key(combo="Return"))), timeout=TIMEOUT)

    closed = sessions.DeleteSession(session_pb2.DeleteSessionRequest(session_id=session.id), timeout=TIMEOUT).session
    summary["closed"] = session_pb2.CloseReason.Name(closed.close_reason)
    json.dump(summary, sys.stdout)
    print()


if __name__ == "__main__":
    try:
        main()
    except grpc.RpcError as e:
        fail("%s: %s" % (e.code().name, e.details()))
