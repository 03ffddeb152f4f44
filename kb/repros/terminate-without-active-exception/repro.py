"""Reproduce: "terminate called without an active exception" when the interpreter
exits while another thread is still inside torch's C++ code.

A daemon thread keeps calling a torch operator. Each call releases the GIL
around the C++ kernel and takes it back afterwards, in the destructor of a
GIL guard (pybind11's ``gil_scoped_release``). When the main thread reaches
the end of the script, CPython finalizes the interpreter; a thread that asks
for the GIL after that point is ended with ``pthread_exit``, which on glibc
unwinds the thread's stack. The unwinding starts inside that destructor,
which is ``noexcept``: the C++ runtime calls ``std::terminate``, libstdc++
prints the line, and the process aborts (SIGABRT, exit status 134, -6 for a
launcher). The same end comes from any C++ thread still joinable when its
``std::thread`` object is destroyed at exit.

CPU only, one process (launcher: python).
"""

import threading

import torch


def work() -> None:
    a = torch.randn(100)
    while True:
        a + a  # the GIL is released around the kernel and taken back after it


threading.Thread(target=work, daemon=True).start()
print("main thread done, interpreter exits", flush=True)
