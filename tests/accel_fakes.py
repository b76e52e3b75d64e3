"""A fake FlashInfer (the same math in plain torch ops) and a fake CUDA machine,
so every acceleration branch runs on a CPU.

``install_fake_flashinfer(monkeypatch)`` puts the fake modules into sys.modules
(undone after the test) and returns a ``Kernels`` object whose ``fail`` makes
the attention kernel raise, as a broken kernel or an out-of-memory would.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types

import torch
import torch.nn.functional as F

from studio.engine.accel.platform import TorchPlatform, model_problems
from studio.engine.accel.reasons import reason


class Kernels:
    def __init__(self):
        self.fail: BaseException | None = None
        self.runs = 0
        self.plans = 0
        self.wrappers = []


def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def make_fake_flashinfer(kernels: Kernels) -> dict[str, types.ModuleType]:
    def rmsnorm(input, weight, eps=1e-6, out=None, enable_pdl=None):
        assert input.dim() == 2 and weight.shape == (input.shape[-1],)
        x = input.to(torch.float32)
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        return weight * x.to(input.dtype)

    def apply_rope_with_cos_sin_cache_inplace(positions, query, key, head_size, cos_sin_cache,
                                              is_neox=True):
        if cos_sin_cache.dtype != torch.float32:
            raise ValueError("cos_sin_cache should be float32")
        assert is_neox and positions.dim() == 1 and query.dim() == 2 and key.dim() == 2
        half = cos_sin_cache.shape[-1] // 2
        cos = cos_sin_cache[positions, :half].repeat(1, 2).unsqueeze(1).to(query.dtype)
        sin = cos_sin_cache[positions, half:].repeat(1, 2).unsqueeze(1).to(query.dtype)
        for x in (query, key):
            heads = x.view(x.shape[0], -1, head_size)
            heads.copy_(heads * cos + _rotate_half(heads) * sin)

    def silu_and_mul(input, out=None, enable_pdl=None):
        half = input.shape[-1] // 2
        return F.silu(input[..., :half]) * input[..., half:]

    class BatchPrefillWithRaggedKVCacheWrapper:
        def __init__(self, float_workspace_buffer, kv_layout="NHD", use_cuda_graph=False,
                     qo_indptr_buf=None, kv_indptr_buf=None, **_):
            assert kv_layout == "NHD" and float_workspace_buffer.dtype == torch.uint8
            if use_cuda_graph:
                assert qo_indptr_buf is not None and kv_indptr_buf is not None
            self.workspace = float_workspace_buffer
            self.use_cuda_graph = use_cuda_graph
            self.qo_buf, self.kv_buf = qo_indptr_buf, kv_indptr_buf
            kernels.wrappers.append(self)

        def plan(self, qo_indptr, kv_indptr, num_qo_heads, num_kv_heads, head_dim_qk,
                 causal=False, sm_scale=None, q_data_type="float16", kv_data_type=None, **_):
            assert not causal and torch.equal(qo_indptr, kv_indptr)
            assert qo_indptr.dtype == torch.int32
            if self.use_cuda_graph:
                assert len(qo_indptr) == len(self.qo_buf), "batch size is fixed in graph mode"
                self.qo_buf.copy_(qo_indptr)
                self.kv_buf.copy_(kv_indptr)
            self.indptr = qo_indptr.tolist()
            self.heads, self.kv_heads, self.dim = num_qo_heads, num_kv_heads, head_dim_qk
            self.scale, self.dtype = sm_scale, q_data_type
            kernels.plans += 1

        def run(self, q, k, v):
            kernels.runs += 1
            if kernels.fail is not None:
                raise kernels.fail
            assert q.dtype == self.dtype and q.shape[1:] == (self.heads, self.dim)
            assert k.shape[1] == v.shape[1] == self.kv_heads
            groups = self.heads // self.kv_heads
            out = torch.empty_like(q)
            for start, end in zip(self.indptr, self.indptr[1:]):
                qd = q[start:end].transpose(0, 1).unsqueeze(0)
                kd = k[start:end].repeat_interleave(groups, dim=1).transpose(0, 1).unsqueeze(0)
                vd = v[start:end].repeat_interleave(groups, dim=1).transpose(0, 1).unsqueeze(0)
                res = F.scaled_dot_product_attention(qd, kd, vd, scale=self.scale)
                out[start:end] = res[0].transpose(0, 1)
            return out

    modules = {}
    for name, members in {
        "flashinfer": {},
        "flashinfer.prefill": {"BatchPrefillWithRaggedKVCacheWrapper": BatchPrefillWithRaggedKVCacheWrapper},
        "flashinfer.norm": {"rmsnorm": rmsnorm},
        "flashinfer.rope": {"apply_rope_with_cos_sin_cache_inplace": apply_rope_with_cos_sin_cache_inplace},
        "flashinfer.activation": {"silu_and_mul": silu_and_mul},
    }.items():
        module = types.ModuleType(name)
        module.__spec__ = importlib.machinery.ModuleSpec(name, None)
        module.__dict__.update(members)
        modules[name] = module
    for name, module in modules.items():
        if "." in name:
            setattr(modules["flashinfer"], name.split(".")[1], module)
    return modules


def install_fake_flashinfer(monkeypatch) -> Kernels:
    kernels = Kernels()
    for name, module in make_fake_flashinfer(kernels).items():
        monkeypatch.setitem(sys.modules, name, module)
    return kernels


class FakeCudaPlatform(TorchPlatform):
    """A CUDA machine as far as the accelerators can tell; the tensors stay on the CPU."""

    def __init__(self, capability=(9, 0), archs=("sm_80", "sm_90"),
                 packages=("flashinfer", "triton"), allow_fp32=True, model_on_cuda=True,
                 compile=None):
        super().__init__()
        self.capability, self.archs, self.packages = capability, list(archs), set(packages)
        self.allow_fp32, self.model_on_cuda = allow_fp32, model_on_cuda
        self._compile = compile
        self.captures = 0
        self.emptied = 0
        self.resets = 0  # reset_compiler() calls
        self.pools: list[object] = []  # the pool each capture was given

    def has_package(self, name):
        return name in self.packages

    def gpu(self):
        if self.capability is None:
            return reason("no_cuda"), None, []
        return None, self.capability, self.archs

    def model_problems(self, component, device, dtype):
        problems = model_problems(component, "cuda" if self.model_on_cuda else device, dtype)
        return [p for p in problems if not (p.code == "fp32_weights" and self.allow_fp32)]

    def compile(self, fn):
        return self._compile(fn) if self._compile is not None else fn

    def reset_compiler(self):
        self.resets += 1

    def graph_pool(self):
        return object()  # a new handle each call, so a test can tell whether one is shared

    def capture_graph(self, fn, pool=None):
        """A stand-in for a CUDA graph: replay recomputes into the captured output."""
        self.captures += 1
        self.pools.append(pool)
        out = fn()
        return (lambda: out.copy_(fn())), out

    def empty_cache(self):
        self.emptied += 1
