"""The vocabulary shared by the synthetic KB and the synthetic logs.

The KB's generated signatures and the logs' warnings draw on the same phrases
and exception names, so the logs are full of near misses: a literal of a
signature occurs, the rest of the pattern does not (performance note, section
1). Only a generated signature's own identifier (``zorkatev417``, built from
``SYLLABLES``) never occurs in a log; that is what keeps the expected answer
the same for every KB size.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RealSignature:
    """One of the ten hand-written, real-world-shaped articles of the N=10 KB."""

    id: str
    title: str
    exception: str
    message: str
    frames: tuple[str, ...]
    error: tuple[str, ...]
    context: tuple[str, ...] = ()


# The ten articles every KB size starts with. The log ends with the first one
# (printed by 8 ranks) and the fourth (torchrun's summary): EXPECTED_HITS.
REAL: tuple[RealSignature, ...] = (
    RealSignature(
        id="cuda-oom",
        title="CUDA out of memory during the forward pass",
        exception="torch.OutOfMemoryError",
        message="CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
        "of 79.15 GiB of which 1.06 GiB is free.",
        frames=("torch/nn/modules/module.py:_call_impl", "modeling_llama.py:forward"),
        error=(
            r"CUDA out of memory\. Tried to allocate \d+(?:\.\d+)? [KMGT]iB",
            r"torch\.(?:cuda\.)?OutOfMemoryError: CUDA out of memory",
        ),
        context=(r"PYTORCH_CUDA_ALLOC_CONF=expandable_segments", r"reserved by PyTorch but"),
    ),
    RealSignature(
        id="dtensor-mixed",
        title="got mixed torch.Tensor and DTensor",
        exception="RuntimeError",
        message="aten.cat.default got mixed torch.Tensor and DTensor, need to convert all "
        "torch.Tensor to DTensor before calling distributed operators!",
        frames=("torch/nn/parallel/distributed.py:__init__", "torch/distributed/utils.py:_sync"),
        error=(r"got mixed torch\.Tensor and DTensor",),
        context=(r"nn/parallel/distributed\.py.{0,80}in __init__", r"_sync_module_states"),
    ),
    RealSignature(
        id="nccl-watchdog-timeout",
        title="NCCL watchdog caught a collective operation timeout",
        exception="torch.distributed.DistBackendError",
        message="[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, "
        "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600010 "
        "milliseconds before timing out.",
        frames=("torch/distributed/distributed_c10d.py:all_reduce",),
        error=(
            r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=\d+, OpType=\w+",
            r"ProcessGroupNCCL's watchdog got stuck for \d+ seconds",
        ),
        context=(r"ProcessGroupNCCL\.cpp:\d+", r"TORCH_NCCL_ASYNC_ERROR_HANDLING"),
    ),
    RealSignature(
        id="torchrun-child-failed",
        title="torchrun: ChildFailedError (a worker process failed)",
        exception="torch.distributed.elastic.multiprocessing.errors.ChildFailedError",
        message="train.py FAILED",
        frames=("torch/distributed/run.py:main", "torch/distributed/launcher/api.py:launch_agent"),
        error=(r"torch\.distributed\.elastic\.multiprocessing\.errors\.ChildFailedError",),
        context=(r"Root Cause \(first observed failure\)", r"exitcode\s{0,4}: -?\d+ \(pid: \d+\)"),
    ),
    RealSignature(
        id="device-mismatch",
        title="Expected all tensors to be on the same device",
        exception="RuntimeError",
        message="Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:0 and cpu!",
        frames=("torch/nn/functional.py:linear",),
        error=(
            r"Expected all tensors to be on the same device, but "
            r"(?:found at least two devices|got \w+ is on)",
        ),
        context=(r"torch/nn/functional\.py.{0,80}in (?:linear|embedding)",),
    ),
    RealSignature(
        id="nccl-unhandled-cuda-error",
        title="NCCL error: unhandled cuda error",
        exception="torch.distributed.DistBackendError",
        message="NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled "
        "cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
        frames=("torch/distributed/distributed_c10d.py:barrier",),
        error=(
            r"NCCL error in: .{0,200}unhandled cuda error",
            r"ncclUnhandledCudaError: Call to CUDA function failed",
        ),
        context=(r"NCCL_DEBUG=INFO for details",),
    ),
    RealSignature(
        id="cuda-device-side-assert",
        title="CUDA error: device-side assert triggered",
        exception="RuntimeError",
        message="CUDA error: device-side assert triggered",
        frames=("torch/nn/functional.py:cross_entropy",),
        error=(r"CUDA error: device-side assert triggered",),
        context=(r"CUDA_LAUNCH_BLOCKING=1", r"Assertion .{0,80}srcIndex < srcSelectDimSize"),
    ),
    RealSignature(
        id="state-dict-size-mismatch",
        title="size mismatch when loading a state_dict",
        exception="RuntimeError",
        message="Error(s) in loading state_dict for LlamaForCausalLM: size mismatch for "
        "lm_head.weight: copying a param with shape torch.Size([32000, 4096]) from checkpoint, "
        "the shape in current model is torch.Size([32001, 4096]).",
        frames=("torch/nn/modules/module.py:load_state_dict",),
        error=(
            r"size mismatch for [\w.]+: copying a param with shape torch\.Size\(\[\d+(?:, \d+)*\]\)"
            r" from checkpoint, the shape in current model is torch\.Size\(\[\d+(?:, \d+)*\]\)",
        ),
        context=(r"Error\(s\) in loading state_dict for \w+",),
    ),
    RealSignature(
        id="cublas-not-initialized",
        title="CUBLAS_STATUS_NOT_INITIALIZED when calling cublasCreate",
        exception="RuntimeError",
        message="CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",
        frames=("torch/nn/functional.py:linear",),
        error=(r"CUBLAS_STATUS_(?:NOT_INITIALIZED|ALLOC_FAILED) when calling .cublasCreate\(",),
    ),
    RealSignature(
        id="nccl-connection-refused",
        title="NCCL/Gloo: connection refused or reset by a peer",
        exception="torch.distributed.DistBackendError",
        message="NCCL WARN socketStartConnect: Connect to 10.0.0.7<43127> failed : "
        "Connection refused",
        frames=("torch/distributed/distributed_c10d.py:init_process_group",),
        error=(
            r"(?:NCCL|Gloo) (?:WARN|ERROR) .{0,200}(?:Connection refused|Connection reset by peer)",
            r"(?i:ncclRemoteError: .{0,120}remote process exited)",
        ),
    ),
)

EXPECTED_TOP = "cuda-oom"
EXPECTED_HITS = frozenset({"cuda-oom", "torchrun-child-failed"})

# Exception types of generated signatures; the first ones are the common ones.
EXCEPTIONS: tuple[str, ...] = (
    "RuntimeError",
    "ValueError",
    "AssertionError",
    "TypeError",
    "KeyError",
    "IndexError",
    "NotImplementedError",
    "AttributeError",
    "OSError",
    "ImportError",
    "torch.distributed.DistBackendError",
    "torch.OutOfMemoryError",
)

# Phrases shared by signatures and by the logs' warnings (the near misses).
PHRASES: tuple[str, ...] = (
    "tensor is not contiguous",
    "expected scalar type Half but found Float",
    "shape mismatch in attention mask",
    "gradient overflow detected",
    "checkpoint shard is missing",
    "process group has not been initialized",
    "collective operation timed out",
    "NaN detected in loss",
    "dtype mismatch between query and key",
    "invalid device ordinal",
    "unexpected key in state_dict",
    "could not find the tokenizer file",
    "sequence length exceeds max_position_embeddings",
    "optimizer state could not be restored",
    "all-gather received fewer bytes than expected",
    "parameter was not used in producing the loss",
    "rotary embedding cache is stale",
    "flash attention is not available for this dtype",
    "memory pool is fragmented",
    "data loader worker exited unexpectedly",
)

LIBRARIES: tuple[str, ...] = (
    "torch",
    "transformers",
    "accelerate",
    "deepspeed",
    "vllm",
    "megatron-core",
    "peft",
    "trl",
)

FUNCTIONS: tuple[str, ...] = ("forward", "backward", "step", "load", "gather", "reduce")

# Frame patterns many articles share as context (they occur in most logs' tracebacks).
GENERIC_CONTEXT: tuple[str, ...] = (
    r"torch/nn/modules/module\.py.{0,80}in _call_impl",
    r"transformers/trainer\.py.{0,80}in (?:train|_inner_training_loop)",
    r"accelerate/accelerator\.py.{0,80}in backward",
    r"torch/autograd/__init__\.py.{0,80}in backward",
    r"deepspeed/runtime/engine\.py.{0,80}in \w+",
    r"torch/distributed/distributed_c10d\.py.{0,80}in \w+",
)

# Identifiers of generated signatures: three syllables and a number; never in a log.
SYLLABLES: tuple[str, ...] = (
    "zor",
    "kat",
    "ev",
    "mil",
    "quan",
    "drab",
    "pix",
    "vol",
    "ner",
    "gosh",
    "tyl",
    "wex",
    "brun",
    "jaf",
    "ulm",
    "sorn",
)
