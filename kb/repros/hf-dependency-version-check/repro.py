"""Reproduce: "ImportError: tokenizers>=0.22.0,<=0.23.0 is required for a normal functioning of this module, but found tokenizers==0.13.3."

``import transformers`` checks the installed versions of its core
dependencies (tokenizers, huggingface-hub, safetensors, accelerate, ...)
against the ranges it was released with, and refuses to import outside them.
Here an older ``tokenizers`` sits in a directory that comes first on the
import path, as a package installed with ``pip install --user`` into
``~/.local`` (or a ``PYTHONPATH`` entry) shadows the environment's own copy.
The version transformers sees is the shadowing one.

CPU only, no downloads: the shadowing install is simulated by a
``tokenizers-0.13.3.dist-info`` folder in a temporary directory put at the
front of ``sys.path`` (launcher: python).
"""

import os
import sys
import tempfile


def shadowing_site(version: str) -> str:
    site = tempfile.mkdtemp()
    info = os.path.join(site, f"tokenizers-{version}.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: tokenizers\nVersion: {version}\n")
    return site


def main() -> int:
    sys.path.insert(0, shadowing_site("0.13.3"))  # BUG: an old --user install comes first on the path
    import transformers

    print(transformers.__version__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
