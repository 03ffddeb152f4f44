"""Fixed: the worker thread is told to stop and joined before the interpreter
exits, so no thread is inside torch's C++ code (or waiting for the GIL) when
finalization starts. The same rule holds for everything that owns a C++ thread:
stop and join it (or call its close/shutdown, for a process group
``dist.destroy_process_group()``) at the end of main, not at interpreter exit.

CPU only, one process (launcher: python).
"""

import threading

import torch

stop = threading.Event()


def work() -> None:
    a = torch.randn(100)
    while not stop.is_set():
        a + a


worker = threading.Thread(target=work)  # not a daemon: nothing is left running at exit
worker.start()
stop.set()
worker.join()
print("worker joined, interpreter exits cleanly", flush=True)
