# SPDX-License-Identifier: Apache-2.0
"""The CUDA side of the bindings (skipped without a CUDA build and a GPU): algorithms and
operations on device='cuda' equal to the CPU backend, operation chains that stay on the device,
device selection; with torch and cupy (skipped without them), DLPack round trips of GPU tensors
without host traffic and results on the input's device."""

import numpy as np
import pytest

import spindle

pytestmark = pytest.mark.skipif(not spindle.cuda_available(),
                                reason="needs a CUDA build of spindle and a GPU")


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    return torch

CUDA = spindle.Descriptor(device="cuda")
CPU = spindle.Descriptor(device="cpu")


@pytest.fixture(scope="module")
def graph():
    return spindle.generate_rmat(14, 16, seed=3, value_dtype="float32")


def test_vectors_from_cuda_tensors_round_trip(torch):
    x = torch.rand(1000, device="cuda", dtype=torch.float64)
    spindle.reset_transfer_stats()
    v = spindle.vector(x)
    assert v.residency == "device" and spindle.transfer_stats()["uploads"] == 0
    back = torch.from_dlpack(v)  # a device copy: no host round trip
    assert back.is_cuda and torch.equal(back, x)
    assert spindle.transfer_stats()["downloads"] == 0
    assert v.dtype == "float64" and np.array_equal(v.to_numpy(), x.cpu().numpy())
    m = spindle.vector(torch.arange(5, device="cuda", dtype=torch.int32))
    assert m.dtype == "int32" and list(m) == [0, 1, 2, 3, 4]
    # Converted on the device: a strided view, a float16 tensor, autograd leaves.
    s = spindle.vector(torch.arange(10, device="cuda", dtype=torch.float32)[::2])
    assert s.dtype == "float32" and list(s) == [0, 2, 4, 6, 8]
    h = spindle.vector(torch.full((3,), 0.5, device="cuda", dtype=torch.float16))
    assert h.dtype == "float64" and list(h) == [0.5, 0.5, 0.5]
    g = spindle.vector(torch.ones(4, device="cuda", requires_grad=True))
    assert list(g) == [1.0] * 4
    with pytest.raises(spindle.InvalidArgument, match="1 dimension"):
        spindle.vector(torch.ones(2, 2, device="cuda"))


def test_exported_vectors_own_their_memory(torch, graph):
    x = spindle.vector(torch.rand(graph.ncols, device="cuda", dtype=torch.float32))
    # Full (rows without entries keep 0): DLPack carries a full vector's values only.
    y = spindle.Vector.full(graph.nrows, 0.0, "float32")
    spindle.mxv(y, None, "plus", "plus_times", graph, x, CUDA)
    assert y.residency == "device" and y.__dlpack_device__() == (2, 0)
    t = torch.from_dlpack(y)
    ref = spindle.mxv(None, None, None, "plus_times", graph, x.to_numpy(), CPU).to_numpy(fill=0)
    assert np.allclose(t.cpu().numpy(), ref, rtol=1e-4, atol=1e-5)
    before = t.clone()
    spindle.ewise_add(y, None, "plus", "plus", x, x, CUDA)  # y changes on the device
    assert torch.equal(t, before), "the exported tensor aliased the vector"
    sparse = spindle.mxv(None, None, None, "plus_times", graph, x, CUDA)  # rows without entries
    with pytest.raises(spindle.InvalidArgument, match="absent entries"):
        torch.from_dlpack(sparse)
    host = np.from_dlpack(spindle.vector(np.arange(3.0)))
    assert host.tolist() == [0.0, 1.0, 2.0]


def test_mxm_with_a_cuda_tensor_returns_a_cuda_tensor(torch, graph):
    B = torch.rand(graph.ncols, 32, device="cuda", dtype=torch.float32)
    spindle.mxm(None, None, "plus_times", graph, B, CUDA)  # the graph's upload
    spindle.reset_transfer_stats()
    C = spindle.mxm(None, None, "plus_times", graph, B, CUDA)
    t = spindle.transfer_stats()
    assert t["uploads"] == 0 and t["downloads"] == 0, t
    assert isinstance(C, torch.Tensor) and C.device == B.device and C.dtype == torch.float32
    ref = spindle.mxm(None, None, "plus_times", graph, B.cpu().numpy(), CPU)
    assert np.allclose(C.cpu().numpy(), ref, rtol=1e-4, atol=1e-5)
    D = spindle.apply(None, None, None, "relu", C - 1.0, CUDA)
    assert D.is_cuda and torch.equal(D, torch.relu(C - 1.0))
    E = spindle.ewise_add(None, None, None, "plus", C, D, CUDA)
    assert E.is_cuda and torch.allclose(E, C + D)
    F = spindle.ewise_mult(None, None, None, "times", D.cpu().numpy(), C, CUDA)  # mixed
    assert isinstance(F, torch.Tensor) and F.is_cuda and torch.allclose(F, C * D)
    vals = spindle.sddmm(None, None, "plus_times", graph, B[:graph.nrows], B, CUDA)
    ref = spindle.sddmm(None, None, "plus_times", graph, B[:graph.nrows].cpu().numpy(),
                        B.cpu().numpy(), CPU)
    assert np.allclose(vals, ref, rtol=1e-4, atol=1e-4)


def test_cupy_arrays_stay_on_the_device(graph):
    cupy = pytest.importorskip("cupy")
    x = cupy.random.rand(graph.ncols, dtype=cupy.float32)
    spindle.mxv(None, None, None, "plus_times", graph, x, CUDA)  # the graph's upload
    spindle.reset_transfer_stats()
    y = spindle.Vector.full(graph.nrows, 0.0, "float32")
    spindle.mxv(y, None, "plus", "plus_times", graph, x, CUDA)
    B = cupy.random.rand(graph.ncols, 8, dtype=cupy.float64)
    C = spindle.mxm(None, None, "plus_times", graph, B, CUDA)
    back = cupy.from_dlpack(y)
    t = spindle.transfer_stats()
    assert t["uploads"] == 0 and t["downloads"] == 0, t
    assert isinstance(C, cupy.ndarray) and C.dtype == cupy.float64
    assert np.allclose(cupy.asnumpy(back), spindle.mxv(None, None, None, "plus_times", graph,
                                                       cupy.asnumpy(x), CPU).to_numpy(fill=0),
                       rtol=1e-4, atol=1e-5)
    assert np.allclose(cupy.asnumpy(C), spindle.mxm(None, None, "plus_times", graph,
                                                    cupy.asnumpy(B), CPU), rtol=1e-10)


def test_gcn_with_cuda_tensors_matches_the_cpu(torch, graph):
    n = graph.nrows
    X = torch.rand(n, 64, device="cuda")
    W = [torch.randn(64, 64, device="cuda") * 0.1, torch.randn(64, 16, device="cuda") * 0.1]
    b = [torch.zeros(64, device="cuda"), torch.zeros(16, device="cuda")]
    out = spindle.gcn(graph, X, W, b, device="cuda")
    assert isinstance(out, torch.Tensor) and out.is_cuda and out.shape == (n, 16)
    ref = spindle.gcn(graph, X.cpu().numpy(), [w.cpu().numpy() for w in W],
                      [x.cpu().numpy() for x in b], device="cpu")
    assert np.allclose(out.cpu().numpy(), ref, rtol=1e-3, atol=1e-4)


def test_algorithms_on_cuda_match_the_cpu(graph):
    cpu = spindle.pagerank(graph, device="cpu")
    gpu = spindle.pagerank(graph, device="cuda")
    assert gpu.converged and np.abs(gpu.ranks - cpu.ranks).sum() < 1e-9
    hub = graph.id_of(int(np.argmax(graph.out_degrees())))
    assert np.array_equal(spindle.bfs(graph, hub, device="cuda").levels,
                          spindle.bfs(graph, hub, device="cpu").levels)
    assert np.allclose(spindle.sssp(graph, hub, device="cuda").distances,
                       spindle.sssp(graph, hub, device="cpu").distances)
    e_cpu = spindle.eigenvector_centrality(graph, device="cpu")
    e_gpu = spindle.eigenvector_centrality(graph, device="cuda")
    assert np.abs(e_cpu.vector - e_gpu.vector).max() < 1e-9


def test_an_operation_chain_stays_on_the_device(graph):
    x = spindle.Vector.full(graph.ncols, 1.0, "float32")
    spindle.reset_transfer_stats()
    y = spindle.mxv(None, None, None, "plus_times", graph, x, CUDA)
    z = spindle.mxv(None, None, None, "plus_times", graph, spindle.apply(
        None, None, None, ("times_scalar", 0.5), y, CUDA), CUDA)
    assert z.residency == "device"
    assert spindle.transfer_stats()["downloads"] == 0
    ref = spindle.mxv(None, None, None, "plus_times", graph, np.asarray(
        spindle.apply(None, None, None, ("times_scalar", 0.5),
                      spindle.mxv(None, None, None, "plus_times", graph,
                                  np.ones(graph.ncols, np.float32), CPU), CPU).to_numpy(fill=0)),
        CPU)
    assert np.allclose(z.to_numpy(fill=0), ref.to_numpy(fill=0), rtol=1e-4)
    assert spindle.transfer_stats()["downloads"] >= 1  # the read above


def test_a_cuda_tensor_goes_to_the_engine_without_a_host_round_trip(torch, graph):
    x = torch.rand(graph.ncols, device="cuda", dtype=torch.float32)
    spindle.mxv(None, None, None, "plus_times", graph, x, CUDA)  # the graph's upload
    spindle.reset_transfer_stats()
    w = spindle.mxv(None, None, None, "plus_times", graph, x, CUDA)
    t = spindle.transfer_stats()
    assert t["uploads"] == 0 and t["downloads"] == 0 and t["graph_uploads"] == 0, t
    ref = spindle.mxv(None, None, None, "plus_times", graph, x.cpu().numpy(), CPU)
    assert np.allclose(w.to_numpy(fill=0), ref.to_numpy(fill=0), rtol=1e-4, atol=1e-5)


def test_gcn_features_on_the_device_are_not_downloaded(torch, graph):
    X = torch.rand(graph.nrows, 16, device="cuda")
    W = [np.eye(16, dtype=np.float32)]
    spindle.gcn(graph, X, W, device="cuda")
    spindle.reset_transfer_stats()
    out = spindle.gcn(graph, X, W, device="cuda")
    # Neither the features nor the output crossed to the host (the engine may read back a few
    # bytes of its own, such as sizes).
    assert out.is_cuda and spindle.transfer_stats()["download_bytes"] < X.numel() * 4 // 10


def test_device_selection():
    g = spindle.Graph.from_edges([0, 1], [1, 0])
    assert spindle.pagerank(g, device="cuda:0").converged
    assert spindle.pagerank(g, device="cuda").converged
    with pytest.raises(spindle.Unsupported, match="CUDA_VISIBLE_DEVICES"):
        spindle.pagerank(g, device="cuda:1")


def test_torch_devices_are_accepted(torch):
    g = spindle.Graph.from_edges([0, 1], [1, 0])
    assert spindle.pagerank(g, device=torch.device("cuda", 0)).converged


def test_the_networkx_backend_runs_on_the_gpu():
    nx = pytest.importorskip("networkx")
    G = nx.gnp_random_graph(300, 0.05, seed=3, directed=True)
    ref = nx.pagerank(G)
    with nx.config.backends.spindle(device="cuda"):
        got = nx.pagerank(G, backend="spindle")
    assert sum(abs(got[v] - ref[v]) for v in G) < 1e-9
