#!/usr/bin/env python3
# Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
# SPDX-License-Identifier: Apache-2.0
"""Drives headless Chromium over the DevTools protocol (--remote-debugging-pipe: NUL-separated
JSON on file descriptors 3 and 4, so the standard library is enough) to look at the mock inbox
as a person would: load the page, wait until it shows N notification cards (live, over its
server-sent events), then save the rendered DOM and, if asked, a screenshot.

  inbox-browser.py URL --cards N --dom OUT.html [--screenshot OUT.png] [--ready FILE]

--ready FILE is written once the page has loaded and rendered its first list, so a caller can
send notifications after it and prove they arrive without a reload. Waits are bounded
(--seconds, default 60); on time-out the DOM so far is saved and the exit status is 1.
"""
import argparse, base64, json, os, shutil, subprocess, sys, tempfile, time


class DevTools:
    def __init__(self, chromium, width, height):
        self.profile = tempfile.mkdtemp(prefix="inbox-chromium-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4 (moved there in the child).
        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
             "--remote-debugging-pipe", f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=lambda: (os.dup2(to_chrome_r, 3), os.dup2(from_chrome_w, 4)))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self.buffer:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def close(self):
        try:
            self.send("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--cards", type=int, required=True)
    parser.add_argument("--dom", required=True)
    parser.add_argument("--screenshot")
    parser.add_argument("--ready")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--width", type=int, default=1200)
    parser.add_argument("--height", type=int, default=900)
    parser.add_argument("--chromium", default="chromium")
    args = parser.parse_args()

    tools = DevTools(args.chromium, args.width, args.height)
    try:
        target = tools.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = tools.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tools.send("Emulation.setDeviceMetricsOverride", {"width": args.width, "height": args.height, "deviceScaleFactor": 1, "mobile": False}, session)
        tools.send("Page.navigate", {"url": args.url}, session)

        def evaluate(expression):
            return tools.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session).get("result", {}).get("value")

        def wait_for(expression):
            deadline = time.monotonic() + args.seconds
            while time.monotonic() < deadline:
                if evaluate(expression):
                    return True
                time.sleep(0.1)
            return False

        # Loaded: the counts line is written by the first render, the live dot by the feed's open.
        loaded = wait_for("document.getElementById('counts') && document.getElementById('counts').textContent !== ''"
                          " && document.getElementById('live').className === 'live on'")
        if args.ready and loaded:
            with open(args.ready, "w") as ready:
                ready.write("ready\n")
        shown = loaded and wait_for(f"document.querySelectorAll('article.card').length >= {args.cards}")
        # Let the last card's layout settle before the picture (fonts, the sticky header).
        evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        with open(args.dom, "w") as dom:
            dom.write(evaluate("document.documentElement.outerHTML") or "")
        if args.screenshot:
            shot = tools.send("Page.captureScreenshot", {"format": "png"}, session)
            with open(args.screenshot, "wb") as png:
                png.write(base64.b64decode(shot["data"]))
        if not shown:
            cards = evaluate("document.querySelectorAll('article.card').length")
            print(f"inbox-browser: the page showed {cards} card(s), not {args.cards}, within {args.seconds:.0f} s", file=sys.stderr)
            return 1
        return 0
    finally:
        tools.close()


if __name__ == "__main__":
    sys.exit(main())
