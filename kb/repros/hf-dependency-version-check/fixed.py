"""Fixed: the shadowing install is taken off the path, so transformers sees the environment's own tokenizers.

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
    shadow = shadowing_site("0.13.3")
    sys.path.insert(0, shadow)
    sys.path.remove(shadow)  # FIX: PYTHONNOUSERSITE=1 / pip uninstall the --user copy / clean PYTHONPATH
    import importlib.metadata

    import transformers

    print("tokenizers", importlib.metadata.version("tokenizers"))

    print(transformers.__version__)
    return 0


if __name__ == "__main__":
    sys.exit(main())
