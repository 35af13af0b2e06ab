#!/usr/bin/env python3
"""fprev-golden's Python worker: the `python` backend's targets (NumPy, PyTorch, JAX, CuPy or a
user's own callable) in a process the gate starts, feeds and watches.

It speaks docs/worker-protocol.md (version 1) on the descriptors the gate passes: 3, a stream
socket of length-prefixed JSON frames; 4, the shared memory file the arrays lie in. The arrays are
read and written in place (numpy.frombuffer over the mapping, torch.from_numpy over that), and one
request carries a run of calls, so the boundary is crossed a few times per wave, not per probe.

Only the standard library at import time: numpy, torch, jax or cupy are imported when `open`
names them, after the gate has set the variables they read when they load (ATEN_CPU_CAPABILITY,
OPENBLAS_CORETYPE, OMP_NUM_THREADS, ...). It is started by fprev-golden, never by hand.
"""
import importlib
import json
import mmap
import os
import platform
import socket
import struct
import sys
import time

PROTOCOL = 1
SOCKET_FD = 3
SHM_FD = 4
MAX_FRAME = 64 << 20
# Inputs of one sum or dot call (the engine makes runs of calls; a call's inputs are staged in one
# array): enough that a call is worth its Python overhead, small enough to stay in cache.
BATCH_ELEMENTS = 1 << 20
MAX_BATCH = 1024

INSTALL_HINT = {
    "numpy": "python3-numpy (Debian) or `pip install numpy`",
    "torch": "python3-torch (Debian) or `pip install torch`",
    "jax": "`pip install jax`",
    "cupy": "`pip install cupy-cuda12x` (or the wheel for your CUDA)",
}


class Failure(Exception):
    """An error reply: type and extra fields as docs/worker-protocol.md lists them."""

    def __init__(self, kind, message, **fields):
        super().__init__(message)
        self.kind = kind
        self.fields = fields


def config_error(parameter, message):
    return Failure("config_error", message, parameter=parameter)


def unavailable(reason, message):
    return Failure("unavailable", message, reason=reason)


# ---- frames and shared memory -------------------------------------------------------------------


class Channel:
    def __init__(self):
        self.sock = socket.socket(fileno=SOCKET_FD)

    def read_exactly(self, count):
        chunks, have = [], 0
        while have < count:
            chunk = self.sock.recv(count - have)
            if not chunk:
                if have == 0:
                    return None
                raise EOFError("the socket closed inside a frame")
            chunks.append(chunk)
            have += len(chunk)
        return b"".join(chunks)

    def read(self):
        head = self.read_exactly(4)
        if head is None:
            return None
        (length,) = struct.unpack("<I", head)
        if length > MAX_FRAME:
            raise EOFError("a frame of %d bytes" % length)
        body = self.read_exactly(length)
        if body is None:
            raise EOFError("the socket closed inside a frame")
        return json.loads(body.decode("utf-8"))

    def write(self, message):
        body = json.dumps(message, separators=(",", ":")).encode("utf-8")
        self.sock.sendall(struct.pack("<I", len(body)) + body)


class SharedMemory:
    def __init__(self):
        self.size = 0
        self.map = None

    def remap(self, size):
        if size == self.size:
            return
        # The old mapping goes away with the last array viewing it (never closed under a view).
        self.map = mmap.mmap(SHM_FD, size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE) if size else None
        self.size = size

    def section(self, np, sections, name, dtype):
        offset, count = sections[name]
        itemsize = np.dtype(dtype).itemsize
        if offset % 8 or offset < 0 or count < 0 or offset + count * itemsize > self.size:
            raise Failure("internal", "section %s lies outside the shared memory" % name)
        return np.frombuffer(self.map, dtype=dtype, count=count, offset=offset)


# ---- libraries ----------------------------------------------------------------------------------


def import_module(name, what, explicit):
    """Imports `name`. Not installed: a skip saying what to install, unless the user named that very
    module (a `function:`), which is then unusable. Installed but broken: unusable."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        missing = error.name or name
        top = name.split(".")[0]
        if not explicit and missing == top:
            hint = INSTALL_HINT.get(top, "`pip install %s`" % top)
            raise unavailable("not_installed", "%s is not installed for the interpreter %s: install %s"
                              % (what, sys.executable, hint))
        raise unavailable("unusable", "%s cannot be imported by %s: %s" % (what, sys.executable, error))
    except Exception as error:  # noqa: BLE001 -- any import-time failure makes it unusable
        raise unavailable("unusable", "%s cannot be imported by %s: %s: %s"
                          % (what, sys.executable, type(error).__name__, error))


def loaded_blas():
    """The BLAS libraries mapped into this process, and OpenBLAS's own report where it is one."""
    found = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                base = os.path.basename(path)
                if any(key in base for key in ("openblas", "libblas", "blis", "mkl_rt", "libmkl", "libcblas")) and path not in found:
                    found.append(path)
    except OSError:
        pass
    result = {"files": found, "corename": "", "config": ""}
    import ctypes
    for path in found:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        # NumPy's and SciPy's wheels carry OpenBLAS with its symbols renamed (scipy-openblas)
        for field, symbols in (("corename", ("openblas_get_corename", "scipy_openblas_get_corename64_",
                                             "scipy_openblas_get_corename")),
                               ("config", ("openblas_get_config", "scipy_openblas_get_config64_",
                                           "scipy_openblas_get_config"))):
            for symbol in symbols:
                fn = getattr(lib, symbol, None)
                if fn is not None and not result[field]:
                    fn.restype = ctypes.c_char_p
                    result[field] = (fn() or b"").decode("utf-8", "replace").strip()
        if result["corename"]:
            result["file"] = os.path.realpath(path)
            break
    return result


class Library:
    """What the instance computes with: builds arrays of its kind over numpy buffers and runs the ops."""

    def __init__(self, settings):
        self.name = settings.get("library", "numpy")
        self.device = settings.get("device", "cpu")
        self.threads = int(settings.get("threads", "1"))
        self.torch = None
        if self.name == "torch":  # named first: a missing torch is what the user must hear of
            self.torch = import_module("torch", "PyTorch (library: torch)", False)
        self.np = import_module("numpy", "numpy (the worker's buffers)", False)
        self.identity_details = {}
        self.function = None
        if self.name == "torch":
            self.torch.set_num_threads(self.threads)
            if self.device == "cuda" and not self.torch.cuda.is_available():
                raise unavailable("host_cannot_run", "device: cuda: PyTorch %s sees no CUDA device here"
                                  % self.torch.__version__)
        elif self.name == "cupy":
            self.cupy = import_module("cupy", "CuPy (library: cupy)", False)
            try:
                self.cupy.cuda.runtime.getDeviceCount()
            except Exception as error:  # noqa: BLE001
                raise unavailable("host_cannot_run", "library: cupy: no CUDA device here (%s)" % error)
        elif self.name == "jax":
            # JAX puts arrays on its default platform, a GPU where it finds one: pinned to the device
            # asked for before it loads, so that a CPU instance never computes on a GPU.
            os.environ["JAX_PLATFORMS"] = "cuda" if self.device == "cuda" else "cpu"
            self.jax = import_module("jax", "JAX (library: jax)", False)
            # Without x64 JAX silently makes float64 arrays float32: another order, another dtype.
            self.jax.config.update("jax_enable_x64", True)
            self.jnp = import_module("jax.numpy", "jax.numpy", False)
            try:
                devices = self.jax.devices()
            except RuntimeError as error:  # no backend for JAX_PLATFORMS
                raise unavailable("host_cannot_run", "device: %s: JAX has no such platform here (%s)" % (self.device, error))
            if self.device == "cuda" and not any(d.platform == "gpu" for d in devices):
                raise unavailable("host_cannot_run", "device: cuda: JAX sees no GPU here")
        elif self.name == "numpy":
            if self.device == "cuda":
                raise config_error("device", "library numpy runs on the CPU only; use torch, jax or cupy for device: cuda")
        else:
            raise config_error("library", "unknown library '%s'; allowed values: numpy, torch, jax, cupy" % self.name)
        spec = settings.get("function", "")
        if spec:
            self.function = load_function(spec, settings.get("module_dir", ""))

    def dtype_of(self, dtype):
        """The library's dtype, or a config error where it has none."""
        np = self.np
        if self.name == "torch":
            return getattr(self.torch, dtype)
        if self.name == "jax":
            return getattr(self.jnp, dtype)
        if dtype == "bfloat16":
            raise config_error("dtype", "%s has no bfloat16; use library: torch or jax" % self.name)
        return np.dtype(dtype)

    def numpy_dtype(self, dtype):
        # bfloat16 travels as its float32 bit pattern's upper half: staged in float32, converted by the library
        return self.np.float32 if dtype == "bfloat16" else self.np.dtype(dtype)

    def zero_copy(self, dtype):
        """Whether the library's array over a numpy buffer shares it (numpy; torch on the CPU)."""
        return self.name == "numpy" or (self.name == "torch" and self.device == "cpu" and dtype != "bfloat16")

    def wrap(self, array, dtype):
        """The library's array over (or from) a numpy array: zero copy for numpy and torch on the CPU."""
        if self.name == "numpy":
            return array
        if self.name == "torch":
            t = self.torch.from_numpy(array)
            if dtype == "bfloat16":
                t = t.to(self.torch.bfloat16)
            if self.device == "cuda":
                t = t.to("cuda")
            return t
        if self.name == "cupy":
            return self.cupy.asarray(array)
        return self.jnp.asarray(array, dtype=self.dtype_of(dtype))

    def synchronize(self):
        if self.name == "torch" and self.device == "cuda":
            self.torch.cuda.synchronize()

    def to_numpy(self, result):
        if self.name == "torch":
            return result.detach().to("cpu").double().numpy()
        if self.name == "cupy":
            return self.cupy.asnumpy(result).astype(self.np.float64)
        return self.np.asarray(result, dtype=self.np.float64)

    def identity(self, settings):
        np = self.np
        details = {
            "python": sys.version.split()[0],
            "interpreter": sys.executable,
            "numpy": np.__version__,
            "threads": str(self.threads),
            "device": self.device,
            "machine": platform.machine(),
        }
        blas = loaded_blas()
        details["blas_files"] = ", ".join(blas["files"]) or "none found in /proc/self/maps"
        # OpenBLAS's openblas_get_corename(): the gate maps it to a kernel family (platform key)
        details["blas_family_core"] = blas["corename"]
        if blas["config"]:
            details["blas_config"] = blas["config"]
        for name in ("ATEN_CPU_CAPABILITY", "OPENBLAS_CORETYPE", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "XLA_FLAGS"):
            if os.environ.get(name):
                details["env_" + name] = os.environ[name]
        library, version, configuration = "NumPy", np.__version__, ""
        if self.name == "torch":
            torch = self.torch
            library, version = "PyTorch", torch.__version__
            # The build's own report (a dozen lines) is kept in the golden, not in the identity
            # line a failure prints: that line names what decides the order, the BLAS among it.
            build = torch.__config__.show()
            if len(build) > 4000:
                build = build[:4000] + "\n[... cut at 4000 characters]"
            details["torch_config"] = build
            reported = torch_capability(torch, build)
            details["capability_reported"] = reported
            # ATen's names ("NO AVX" in 1.x, "DEFAULT" in 2.x, "AVX2", "AVX512") as ATEN_CPU_CAPABILITY spells them
            details["capability"] = "default" if reported.lower() in ("no avx", "default") else reported.lower()
            details["torch_threads"] = str(torch.get_num_threads())
            if self.device == "cuda":
                details["cuda_device"] = torch.cuda.get_device_name()
                details["cuda_capability"] = "%d.%d" % torch.cuda.get_device_capability()
                details["cuda_version"] = str(torch.version.cuda)
                # TF32 in matmuls changes the arithmetic: part of what the golden records
                details["allow_tf32"] = str(torch.backends.cuda.matmul.allow_tf32)
                configuration = "CUDA %s, %s" % (details["cuda_version"], details["cuda_device"])
            else:
                configuration = "BLAS %s, CPU capability %s" % (blas_identity(blas), reported)
        elif self.name == "numpy":
            # NumPy's matrix products are its BLAS's: a change there is the BLAS's, named here.
            configuration = "BLAS " + blas_identity(blas)
        elif self.name == "jax":
            library, version = "JAX", self.jax.__version__
            configuration = ", ".join(str(d) for d in self.jax.devices())
            if self.device == "cuda":
                details["cuda_device"] = self.jax.devices()[0].device_kind
                # Measured on an H200 (backends/python/README.md): without XLA's deterministic ops
                # the orders of sums and dots change from one process to the next; with them they
                # are stable, and other orders. So the flag is part of the platform key.
                flags = os.environ.get("XLA_FLAGS", "").replace("=", " ").split()
                deterministic = "--xla_gpu_deterministic_ops" in flags and \
                    flags[flags.index("--xla_gpu_deterministic_ops") + 1:][:1] not in (["false"], ["0"])
                details["xla_deterministic_ops"] = "true" if deterministic else "false"
        elif self.name == "cupy":
            library, version = "CuPy", self.cupy.__version__
            properties = self.cupy.cuda.runtime.getDeviceProperties(0)
            name = properties.get("name", b"")
            details["cuda_device"] = name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name)
            details["cuda_capability"] = "%s.%s" % (properties.get("major", "?"), properties.get("minor", "?"))
        baseline, dispatch = numpy_simd(np)
        if baseline:
            # NumPy's own SIMD loops (its sum): what this numpy was built for and dispatches to here
            details["numpy_cpu_baseline"] = baseline
            details["numpy_cpu_dispatch"] = dispatch
        if self.function is not None:
            details["function"] = settings.get("function", "")
            details["function_file"] = getattr(sys.modules.get(self.function.__module__), "__file__", "") or ""
            library = settings.get("function", "")
            # The identity line a failure prints changes when the user's code does: a digest of the
            # function's module (its helpers too), so a reviewer sees that *their* code changed.
            version = "source " + source_digest(self.function, details["function_file"])
        return {"library": library, "version": version, "configuration": configuration,
                "platform_key": "", "details": details}


def numpy_simd(np):
    """NumPy's CPU features: the baseline it was built for, and the dispatch targets this CPU runs."""
    core = getattr(np, "_core", None) or getattr(np, "core", None)
    umath = getattr(core, "_multiarray_umath", None)
    if umath is None or not hasattr(umath, "__cpu_baseline__"):
        return "", ""
    features = getattr(umath, "__cpu_features__", {})
    dispatch = [name for name in getattr(umath, "__cpu_dispatch__", []) if features.get(name)]
    return " ".join(umath.__cpu_baseline__), " ".join(dispatch) or "none"


def source_digest(function, file):
    """The first 16 hex digits of the SHA-256 of the function's module file (else of its source)."""
    import hashlib
    data = b""
    try:
        with open(file, "rb") as source:
            data = source.read()
    except (OSError, TypeError):
        try:
            import inspect
            data = inspect.getsource(function).encode("utf-8")
        except (OSError, TypeError):
            return "unknown"
    return hashlib.sha256(data).hexdigest()[:16]


def blas_identity(blas):
    """The BLAS a library computes with, as a failure names it: OpenBLAS's own report of its version
    and build ("OpenBLAS 0.3.29 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"), else the
    file names of the BLAS libraries mapped into the process (no directories: the same library
    installed elsewhere is the same library)."""
    if blas["config"]:
        return blas["config"]
    return ", ".join(os.path.basename(path) for path in blas["files"]) or "none found"


def torch_capability(torch, configuration):
    """The ATen CPU capability in effect: torch.backends.cpu.get_cpu_capability() (PyTorch 2), or the
    line "CPU capability usage: AVX2" of torch.__config__.show() (1.x), which reports the same."""
    cpu = getattr(torch.backends, "cpu", None)
    if cpu is not None and hasattr(cpu, "get_cpu_capability"):
        return cpu.get_cpu_capability()
    for line in configuration.splitlines():
        if "CPU capability usage:" in line:
            return line.split(":", 1)[1].strip()
    return "unknown"


def load_function(spec, module_dir):
    """`package.module:callable`, imported from `module_dir` (a suite's folder, or what the suite or
    the command line names: always an absolute path, else nothing) ahead of PYTHONPATH and the
    interpreter's own paths. Never from the folder the gate runs in: this script is run by path, so
    sys.path[0] is its own folder, and an entry for the working directory ('' or '.') is removed."""
    if spec.count(":") != 1:
        raise config_error("function", "function '%s' is not package.module:callable" % spec)
    module_name, attribute = spec.split(":")
    sys.path[:] = [p for p in sys.path if p not in ("", ".") and os.path.isabs(p)]
    if module_dir and os.path.isabs(module_dir):
        sys.path.insert(0, module_dir)
    module = import_module(module_name, "the module %s of function: %s" % (module_name, spec), True)
    target = module
    for part in attribute.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise unavailable("unusable", "function: %s: %s has no %s" % (spec, module_name, attribute))
    if not callable(target):
        raise unavailable("unusable", "function: %s is not callable" % spec)
    return target


# ---- targets ------------------------------------------------------------------------------------

FORMATS = ("float16", "bfloat16", "float32", "float64")


def aligned(np, rows, columns, dtype, pad_rows=True, offset=0, leading_pad=0):
    """A rows x columns array that starts `offset` elements after a 64-byte boundary (0: where a fresh
    library array starts). pad_rows: every row starts at that offset too (a batch of vectors: a
    reduction's order must not depend on where its row of our staging happens to start); else the
    rows follow each other with a leading dimension of columns + leading_pad (a matrix, as FPRev
    makes it when leading_pad is 0). The alignment check (docs/alignment.md) asks for the others."""
    itemsize = np.dtype(dtype).itemsize
    per_line = 64 // itemsize
    stride = -(-(columns + offset) // per_line) * per_line if pad_rows else columns + leading_pad
    raw = np.zeros(offset + rows * stride + per_line, dtype=dtype)
    start = (-raw.ctypes.data % 64) // itemsize + offset
    return raw[start:start + rows * stride].reshape(rows, stride)[:, :columns]


class Target:
    """One case: sum, dot, gemv or gemm with FPRev's conventions (x.sum(), x @ y, A @ x / x @ A,
    A @ B with the transposes)."""

    def __init__(self, library, params):
        np = library.np
        self.lib = library
        self.np = np
        self.op = params["op"]
        self.dtype = params.get("dtype", "float32")
        self.stage = library.numpy_dtype(self.dtype)
        library.dtype_of(self.dtype)  # refuses a dtype the library lacks
        n = int(params["n"])
        trans = params.get("trans", "")
        narrow = self.dtype in ("float16", "bfloat16")
        traits = {"input": self.dtype, "accumulator": "float32" if narrow else self.dtype, "output": self.dtype,
                  "summand": "plain", "max_fused_width": 2, "fused_extra_bits": 0, "simulate_fused": False,
                  # real libraries may keep parts of a sum wider: a mismatch of the simulation is a note
                  "exact_arithmetic_model": False}
        who = library.function and "%s" % library.function.__name__ or library.name
        self.grid = (1, 1)
        if self.op in ("sum", "dot"):
            self.n = n
            self.batch = max(1, min(MAX_BATCH, BATCH_ELEMENTS // n))
            traits["summand"] = "plain" if self.op == "sum" else "product"
            description = "%s %s %s n=%d" % (who, self.op, self.dtype, n)
        elif self.op == "gemv":
            m = int(params["m"])
            self.trans = trans or "N"
            # A is m x n; N: y = A @ x sums over n (m outputs); T: y = x @ A sums over m (n outputs)
            self.rows, self.n = (m, n) if self.trans == "N" else (n, m)
            self.columns = 1
            self.batch = 1
            self.grid = (self.rows, 1)
            traits["summand"] = "product_shared_rhs"
            expression = "A @ x" if self.trans == "N" else "x @ A"
            description = "%s gemv %s (%s) %s m=%d n=%d" % (who, self.trans, expression, self.dtype, m, n)
        elif self.op == "gemm":
            m, k = int(params["m"]), int(params["k"])
            self.trans = trans or "NN"
            ta, tb = self.trans
            self.rows, self.n, self.columns = m, k, n
            self.batch = 1
            self.grid = (m, n)
            traits["summand"] = "product_shared_rhs"
            description = "%s gemm %s (%sA @ %sB) %s m=%d n=%d k=%d" % (
                who, self.trans, "" if ta == "N" else "^T ", "" if tb == "N" else "^T ", self.dtype, m, n, k)
            description = description.replace("^T A", "A.T").replace("^T B", "B.T")
        else:
            raise config_error("op", "unknown op '%s'; allowed values: sum, dot, gemv, gemm" % self.op)
        if library.name == "torch" and library.device == "cuda":
            description += ", %s" % library.torch.cuda.get_device_name()
        elif library.name == "torch":
            description += ", %d thread%s, %s" % (library.threads, "" if library.threads == 1 else "s",
                                                  torch_capability(library.torch, library.torch.__config__.show()))
        self.backgrounds = {}
        # Where the data lies is ours to choose only where the library computes on our buffers
        # (numpy, torch on the CPU): a copy (the device, bfloat16, JAX) lands where its allocator puts it.
        self.honours_offsets = library.zero_copy(self.dtype)
        self.info = {"description": description, "n": self.n, "traits": traits, "max_batch": self.batch,
                     "grid": {"rows": self.grid[0], "columns": self.grid[1]},
                     "columns_placement": self.grid != (1, 1),
                     # op(B) of a GEMM is a whole matrix: each column may multiply factors of its own
                     "column_right_factors": self.op == "gemm" and self.columns > 1,
                     "alignment": "honours_offsets" if self.honours_offsets else "not_applicable",
                     # a matrix's leading dimension grows by leading_pad (its rows start elsewhere)
                     "leading_dimensions": self.honours_offsets and self.op in ("gemv", "gemm")}
        self.layout = None
        self.place(0, 0)

    def place(self, offset, leading_pad):
        """Builds the staging arrays with the data `offset` elements after a 64-byte boundary and the
        matrices' leading dimensions grown by `leading_pad` (the alignment check); kept until a call
        asks for another placement."""
        if (offset, leading_pad) == self.layout:
            return
        np = self.np
        per_line = 64 // np.dtype(self.stage).itemsize
        if (offset or leading_pad) and not self.honours_offsets:
            raise Failure("internal", "a placement (offset %d, leading_pad %d) for a target that does not honour offsets"
                          % (offset, leading_pad))
        if not 0 <= offset < per_line or not 0 <= leading_pad <= per_line:
            raise Failure("internal", "offset %d or leading_pad %d out of range" % (offset, leading_pad))
        stage = self.stage
        if self.op in ("sum", "dot"):
            self.x = aligned(np, self.batch, self.n, stage, offset=offset)
            self.y = aligned(np, self.batch, self.n, stage, offset=offset) if self.op == "dot" else None
        elif self.op == "gemv":
            m, n = (self.rows, self.n) if self.trans == "N" else (self.n, self.rows)
            self.a = aligned(np, m, n, stage, False, offset, leading_pad)
            self.op_a = self.a if self.trans == "N" else self.a.T  # rows x reduction
            self.vec = aligned(np, 1, self.n, stage, offset=offset)[0]
            self.op_b = self.vec[:, None]  # reduction x 1
        else:
            (ta, tb), m, k, n = self.trans, self.rows, self.n, self.columns
            self.a = aligned(np, *((m, k) if ta == "N" else (k, m)), stage, False, offset, leading_pad)
            self.b = aligned(np, *((k, n) if tb == "N" else (n, k)), stage, False, offset, leading_pad)
            self.op_a = self.a if ta == "N" else self.a.T
            self.op_b = self.b if tb == "N" else self.b.T
        self.shared_value = None  # the constant the shared operand holds, when it holds one
        self.row_keys = None  # per staging row: the background it holds (sum, dot)
        self.compute = self.make_compute()
        self.layout = (offset, leading_pad)

    def make_compute(self):
        """The op as FPRev writes it, on the library's arrays built over our buffers."""
        lib, f, dtype = self.lib, self.lib.function, self.dtype
        if lib.zero_copy(dtype):
            # wrapped once: the library's arrays see every write into our buffers
            def wrapper(arrays):
                wrapped = [lib.wrap(array, dtype) for array in arrays]
                return lambda index: wrapped[index]
        else:
            def wrapper(arrays):  # converted (bfloat16) or copied to the device at every call
                return lambda index: lib.wrap(arrays[index], dtype)
        if self.op == "sum":
            xs = wrapper([self.x[p] for p in range(self.batch)])
            op = f or (lambda x: x.sum())
            return lambda p: op(xs(p))
        if self.op == "dot":
            xs = wrapper([self.x[p] for p in range(self.batch)])
            ys = wrapper([self.y[p] for p in range(self.batch)])
            op = f or (lambda x, y: x @ y)
            return lambda p: op(xs(p), ys(p))
        if self.op == "gemv":
            av = wrapper([self.a, self.vec])
            op = f or (lambda u, v: u @ v)
            return (lambda p: op(av(0), av(1))) if self.trans == "N" else (lambda p: op(av(1), av(0)))
        ab = wrapper([self.a, self.b])
        ta, tb = self.trans
        op = f or (lambda u, v: u @ v)
        return lambda p: op(ab(0) if ta == "N" else ab(0).T, ab(1) if tb == "N" else ab(1).T)

    def grid_out(self, out):
        result = self.lib.to_numpy(self.compute(0))
        out[:] = result.reshape(-1)

    # -- probes: rows of (a, b) factors built from a background and the two masks --

    def background(self, np, row, active, values, dtype=None):
        """A background's a factors as a row (cached by id and values: ids are unique in the gate)."""
        key = (int(row[0]), float(values[0]), dtype)
        cached = self.backgrounds.get(key)
        if cached is None:
            a = np.full(self.n, values[0], dtype=dtype or np.float64)
            if not row[1]:
                a[:] = 0
                a[active[row[2]:row[2] + row[3]].astype(np.int64)] = values[0]
            cached = a
            if len(self.backgrounds) > 64:
                self.backgrounds.clear()
            self.backgrounds[key] = cached
        return cached

    def stage_probes(self, staging, b_staging, probes, lists, backgrounds, active, values):
        """Writes each probe's a factors into a row of `staging` (and its b factors into b_staging)."""
        np = self.np
        count = len(probes)
        for p in range(count):
            staging[p] = self.background(np, backgrounds[lists[probes[p, 2]]], active, values)
        rows = np.arange(count)
        staging[rows, probes[:, 0]] = values[2]
        staging[rows, probes[:, 1]] = values[4]
        if b_staging is not None:
            b_staging[:count] = values[1]
            b_staging[rows, probes[:, 0]] = values[3]
            b_staging[rows, probes[:, 1]] = values[5]

    def stage_vectors(self, probes, lists, backgrounds, active, values):
        """The sum/dot staging rows, changed in O(1) per probe where a row already holds the probe's
        background: the two masks of its last probe are put back, the new ones set (as the C++
        targets' ProbeVectors do), so a call costs the library's work, not n copies per probe."""
        np = self.np
        count = len(probes)
        x, y = self.x, self.y
        keys = [(int(backgrounds[lists[b], 0]), float(values[0]), float(values[1])) for b in probes[:, 2]]
        rows = np.arange(count)
        if self.row_keys is None:
            self.row_keys = [None] * self.batch
            self.last = np.zeros((self.batch, 2), dtype=np.int64)
        kept = [p for p in range(count) if self.row_keys[p] == keys[p]]
        if len(kept) < count:
            for p in range(count):
                if self.row_keys[p] != keys[p]:
                    x[p] = self.background(np, backgrounds[lists[probes[p, 2]]], active, values, self.stage)
                    if y is not None:
                        y[p] = values[1]
                    self.row_keys[p] = keys[p]
        if kept:
            kept = np.asarray(kept)
            for column in (0, 1):
                leaves = self.last[kept, column]
                bg = [self.background(np, backgrounds[lists[probes[p, 2]]], active, values, self.stage) for p in kept]
                x[kept, leaves] = [row[leaf] for row, leaf in zip(bg, leaves)]
                if y is not None:
                    y[kept, leaves] = values[1]
        x[rows, probes[:, 0]] = values[2]
        x[rows, probes[:, 1]] = values[4]
        if y is not None:
            y[rows, probes[:, 0]] = values[3]
            y[rows, probes[:, 1]] = values[5]
        self.last[:count, 0] = probes[:, 0]
        self.last[:count, 1] = probes[:, 1]

    def scalars(self, count, outputs):
        """The outputs of `count` single-output inputs; NumPy's scalars convert in one go."""
        results = [self.compute(p) for p in range(count)]
        if self.lib.name == "numpy":
            try:
                outputs[:] = self.np.asarray(results, dtype=self.np.float64)
                return
            except (TypeError, ValueError):
                pass
        outputs[:] = [float(r.item()) if hasattr(r, "item") else float(r) for r in results]

    def fill_shared(self, placement, value):
        other = self.op_b if placement == "rows" else self.op_a
        if self.shared_value != (placement, value):
            other[...] = value
            self.shared_value = (placement, value)

    def load_lines(self, placement, count, inputs):
        """Input p (a row of `inputs`) goes into row p of op(A) or column p of op(B); the rest zero."""
        if placement == "rows":
            self.op_a[:count] = inputs[:count]
            self.op_a[count:] = 0
        else:
            self.op_b[:, :count] = inputs[:count].T
            self.op_b[:, count:] = 0

    def probes(self, shm, sections, placement, offset=0, leading_pad=0):
        np = self.np
        self.place(offset, leading_pad)
        values = shm.section(np, sections, "values", "<f8")
        calls = shm.section(np, sections, "calls", "<u4").reshape(-1, 3)
        lists = shm.section(np, sections, "call_backgrounds", "<u4")
        probes = shm.section(np, sections, "probes", "<u4").reshape(-1, 3).astype(np.int64)
        backgrounds = shm.section(np, sections, "backgrounds", "<u8").reshape(-1, 4).astype(np.int64)
        active = shm.section(np, sections, "active", "<u4")
        outputs = shm.section(np, sections, "outputs", "<f8")
        grid = self.op in ("gemv", "gemm")  # a matrix op, also of one output (m = 1): its own buffers
        if grid and (values[3] != values[1] or values[5] != values[1]):
            raise Failure("target_error", "the probe values have per-leaf right-hand factors; a shared operand needs one")
        first, out_at, done = 0, 0, 0
        try:
            for count, list_begin, list_count in calls:
                call_probes = probes[first:first + count]
                call_lists = lists[list_begin:list_begin + list_count]
                first += count
                if grid:
                    lines = self.rows if placement == "rows" else self.columns
                    if count > lines:
                        raise Failure("internal", "a call with more probes than lines")
                    staging = np.empty((count, self.n))
                    self.stage_probes(staging, None, call_probes, call_lists, backgrounds, active, values)
                    self.fill_shared(placement, values[1])
                    self.load_lines(placement, count, staging)
                    size = self.grid[0] * self.grid[1]
                    self.grid_out(outputs[out_at:out_at + size])
                    out_at += size
                else:
                    if count > self.batch:
                        raise Failure("internal", "a call with more probes than max_batch")
                    self.stage_vectors(call_probes, call_lists, backgrounds, active, values)
                    self.scalars(count, outputs[out_at:out_at + count])
                    out_at += count
                done += 1
        except Failure as failure:
            failure.fields["done"] = done
            raise
        except Exception as error:  # noqa: BLE001 -- the callable's own error
            raise Failure("target_error", "%s: %s" % (type(error).__name__, error), done=done)
        self.lib.synchronize()

    def values(self, shm, sections, placement, offset=0, leading_pad=0):
        np = self.np
        self.place(offset, leading_pad)
        calls = shm.section(np, sections, "calls", "<u8").reshape(-1, 4)
        a = shm.section(np, sections, "a", "<f8")
        b = shm.section(np, sections, "b", "<f8")
        outputs = shm.section(np, sections, "outputs", "<f8")
        # Optional (a GEMM's info says column_right_factors): per call, the block of b each column
        # multiplies (ValueBatch::column_factors).
        column_calls = column_names = None
        if "column_factors" in sections:
            if not self.info.get("column_right_factors"):
                raise Failure("internal", "column factors for a target that does not take them")
            column_calls = shm.section(np, sections, "column_calls", "<u8").reshape(-1, 2).tolist()
            column_names = shm.section(np, sections, "column_factors", "<u4")
            if len(column_calls) != len(calls):
                raise Failure("internal", "malformed column-factor sections")
        n, out_at, done = self.n, 0, 0
        try:
            for call, (rows, a_begin, b_begin, b_count) in enumerate(calls.tolist()):
                inputs = a[a_begin:a_begin + rows * n].reshape(rows, n)
                factors = b[b_begin:b_begin + b_count] if b_count else None
                named = None
                if column_calls is not None and column_calls[call][1]:
                    begin, count = column_calls[call]
                    named = column_names[begin:begin + count]
                    if placement != "rows" or count != self.columns or factors is None or b_count % n or \
                            int(named.max()) >= b_count // n:
                        raise Failure("internal", "column factors that do not fit the call")
                if self.op in ("gemv", "gemm"):
                    self.shared_value = None
                    other = self.op_b if placement == "rows" else self.op_a
                    if named is not None:
                        other[...] = factors.reshape(-1, n)[named.astype(np.int64)].T
                    elif factors is None:
                        other[...] = 1
                    elif placement == "rows":
                        other[...] = factors[:n, None]
                    else:
                        other[...] = factors[None, :n]
                    self.load_lines(placement, rows, inputs)
                    size = self.grid[0] * self.grid[1]
                    self.grid_out(outputs[out_at:out_at + size])
                    out_at += size
                else:
                    self.row_keys = None  # the rows no longer hold backgrounds
                    self.x[:rows] = inputs
                    if self.y is not None:
                        self.y[:rows] = 1 if factors is None else factors[None, :n]
                    self.scalars(rows, outputs[out_at:out_at + rows])
                    out_at += rows
                done += 1
        except Failure as failure:
            failure.fields["done"] = done
            raise
        except Exception as error:  # noqa: BLE001
            raise Failure("target_error", "%s: %s" % (type(error).__name__, error), done=done)
        self.lib.synchronize()


# ---- the server ---------------------------------------------------------------------------------


class Server:
    def __init__(self):
        self.shm = SharedMemory()
        self.library = None
        self.settings = {}
        self.targets = {}
        self.last_target = 0

    def handle(self, request):
        if "shm" in request:
            self.shm.remap(int(request["shm"]))
        op = request.get("op", "")
        if op == "open":
            self.settings = dict(request["params"])
            self.library = Library(self.settings)
            return {"identity": self.library.identity(self.settings)}
        if self.library is None:
            raise Failure("internal", "a request before open")
        if op == "case_params":
            return {"case_params": []}  # the gate's backend declares them
        if op == "validate_case":
            Target(self.library, request["params"])  # e.g. bfloat16 with numpy
            return {}
        if op == "concurrent_targets":
            return {"targets": 1}
        if op == "make_target":
            target = Target(self.library, request["params"])
            self.last_target += 1
            self.targets[self.last_target] = target
            return {"target": self.last_target, "info": target.info}
        if op == "release":
            self.targets.pop(int(request["target"]), None)
            return {}
        if op == "close_instance":
            self.targets.clear()
            return {}
        if op in ("probes", "values"):
            target = self.targets.get(int(request["target"]))
            if target is None:
                raise Failure("internal", "no target %s" % request["target"])
            start = time.perf_counter()
            getattr(target, op)(self.shm, request["sections"], request.get("placement", "rows"),
                                int(request.get("offset", 0)), int(request.get("leading_pad", 0)))
            return {"seconds": time.perf_counter() - start}
        raise Failure("internal", "unknown request '%s'" % op)


PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
SIGKILL = 9


def die_with_the_gate():
    """Every process the gate starts dies with it (SECURITY.md). The gate sets both attributes
    before it executes us; they are set again here for an interpreter that a wrapper script
    started (its parent is then the wrapper, which dies with the gate), and a gate that died before
    we got here ends us now instead of leaving us under PID 1."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the gate's end of the socket still ends the loop in main()
    supervisor = os.environ.pop("FPREV_SUPERVISOR_PID", "")
    if supervisor.isdigit():
        try:
            os.kill(int(supervisor), 0)
        except ProcessLookupError:
            os._exit(1)
        except PermissionError:
            pass  # a process with that number lives, under another user: not ours, but not gone


def main():
    try:
        os.fstat(SOCKET_FD)
        os.fstat(SHM_FD)
    except OSError:
        sys.stderr.write("fprev_python_worker: started without its descriptors (3: socket, 4: shared memory); "
                         "it is started by fprev-golden, not by hand\n")
        return 2
    die_with_the_gate()
    channel = Channel()
    server = Server()
    channel.write({"hello": "fprev-worker", "protocol": PROTOCOL, "pid": os.getpid()})
    while True:
        request = channel.read()
        if request is None:
            return 0  # the gate is done with us
        try:
            reply = server.handle(request)
            reply["ok"] = True
        except Failure as failure:
            error = {"type": failure.kind, "message": str(failure)}
            error.update({k: v for k, v in failure.fields.items() if k != "done"})
            reply = {"ok": False, "error": error}
            if "done" in failure.fields:
                reply["done"] = failure.fields["done"]
        except Exception as error:  # noqa: BLE001 -- a bug here, or a library error outside a call
            reply = {"ok": False, "error": {"type": "internal", "message": "%s: %s" % (type(error).__name__, error)}}
        channel.write(reply)


if __name__ == "__main__":
    sys.exit(main())
