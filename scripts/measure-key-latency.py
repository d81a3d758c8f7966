#!/usr/bin/env python3
"""Measures how fast the inspector starts, and answers a key while a program floods it.

Starts `pipescope-example` sending EXAMPLE_RATE values a second (about 2.5 events each),
attaches `pipescope` to it in a tmux session, then presses `?` (help) and Esc in turn and
times, from send-keys until capture-pane shows the change, how long each key took to
reach the screen. tmux itself adds a few milliseconds to every sample.

    swift build -c release --product pipescope --product pipescope-example
    scripts/measure-key-latency.py --rate 40000 --bin .build/release
    scripts/measure-key-latency.py --rate 40000 --pipelines 10000 --bin .build/release

With --pipelines N the program also makes N idle pipelines of three stages
(EXAMPLE_PIPELINES) when it starts, so the inspector's table has N more rows to keep up
to date, and its snapshot of 3N stages travels in parts (protocol version 5).

It also times start-up: from launching `pipescope attach` in tmux until its first frame
(the status line reads LIVE) is on the screen, five times.
"""
import argparse, os, re, statistics, subprocess, tempfile, time

def pipelines_shown(screen):
    """The table's count of pipelines ("Pipelines: 10003"), or 0."""
    m = re.search(r"Pipelines: (\d+)", screen)
    return int(m.group(1)) if m else 0

def tmux(*args):
    return subprocess.run(["tmux", "-L", "latency", *args], capture_output=True, text=True).stdout

def wait_for(predicate, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        screen = tmux("capture-pane", "-p", "-t", "lat")
        if predicate(screen):
            return screen
    raise SystemExit("timed out; last screen:\n" + screen)

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rate", type=int, default=40000, help="values per second (~2.5 events each)")
    p.add_argument("--bin", default=".build/release")
    p.add_argument("--samples", type=int, default=40)
    p.add_argument("--pipelines", type=int, default=0, help="idle pipelines the program makes besides its own")
    a = p.parse_args()
    sock = os.path.join(tempfile.mkdtemp(), "lat.sock")
    env = dict(os.environ, PIPESCOPE_SOCKET=sock, EXAMPLE_RATE=str(a.rate), EXAMPLE_PIPELINES=str(a.pipelines))
    program = subprocess.Popen([os.path.join(a.bin, "pipescope-example")], env=env, stdout=subprocess.DEVNULL)
    try:
        while not os.path.exists(sock):
            time.sleep(0.05)
        if a.pipelines:
            # Start-up is timed once the program has made its pipelines: attach, wait for
            # the table to count them, leave.
            tmux("new-session", "-d", "-s", "lat", "-x", "120", "-y", "40",
                 f"{os.path.join(a.bin, 'pipescope')} attach {sock}")
            wait_for(lambda s: pipelines_shown(s) >= a.pipelines)
            tmux("kill-session", "-t", "lat")
            time.sleep(0.3)
        starts = []
        for _ in range(5):
            start = time.monotonic()
            tmux("new-session", "-d", "-s", "lat", "-x", "120", "-y", "40",
                 f"{os.path.join(a.bin, 'pipescope')} attach {sock}")
            wait_for(lambda s: "LIVE" in s)
            starts.append((time.monotonic() - start) * 1000)
            tmux("kill-session", "-t", "lat")
            time.sleep(0.3)
        tmux("new-session", "-d", "-s", "lat", "-x", "120", "-y", "40",
             f"{os.path.join(a.bin, 'pipescope')} attach {sock}")
        wait_for(lambda s: "LIVE" in s)
        time.sleep(2)  # let the rate settle
        rate_line = tmux("capture-pane", "-p", "-t", "lat").splitlines()[0]
        samples = []
        for i in range(a.samples):
            opening = i % 2 == 0
            start = time.monotonic()
            tmux("send-keys", "-t", "lat", "?" if opening else "Escape")
            wait_for((lambda s: "Keys" in s) if opening else (lambda s: "Keys" not in s))
            samples.append((time.monotonic() - start) * 1000)
            time.sleep(0.05)
        samples.sort()
        print(f"start-up, launch to first frame: median {statistics.median(starts):.0f} ms, max {max(starts):.0f} ms")
        print(f"status line: {rate_line.strip()}")
        print(f"key to screen, {len(samples)} samples: median {statistics.median(samples):.1f} ms, "
              f"p90 {samples[int(len(samples) * 0.9) - 1]:.1f} ms, max {samples[-1]:.1f} ms")
    finally:
        tmux("kill-server")
        program.terminate()

if __name__ == "__main__":
    main()
