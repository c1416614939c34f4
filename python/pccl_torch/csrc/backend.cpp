// The torch.distributed backend "pccl": a c10d::Backend over one pccl
// communicator per process group (one process per GPU).
//
// Stream order.  A collective is issued with pcclRunAfter on the caller's
// current CUDA stream: the daemon reads the inputs once the work queued
// before the call is done, and nothing waits on the host.  Work.wait() puts
// pcclStreamWaitRun on the then-current stream: the work queued after it
// starts once the collective completed.  Until wait(), the current stream
// runs on: collectives issued in different orders on different ranks do not
// wait for each other (NCCL's kernels, queued in its one stream, do).
//
// Identity.  pccl registers a collective once, in the same order on every
// rank, while torch invokes lazily and ranks may first meet a shape in
// different orders.  A call's key is (kind, dtype, element count, op, root,
// tag); the first rank to meet a key claims the next slot in the group's
// store and publishes its description; every rank registers the slots in
// slot order (reading the descriptions it has not met itself), so slot n
// is collective id n everywhere.  The k-th call of a key on each rank is
// the k-th invocation of that collective: pccl pairs them (its rings are
// the collective's own and FIFO).  What it cannot tell apart: two calls of
// one key that ranks issue in different orders.  It refuses the case it can
// see, a call of an untagged key while an earlier call of it is neither
// complete nor waited for (they may be ordered differently elsewhere), with
// an error naming the key; such calls need distinct tags (pccl_torch.tag).
// Calls of one key separated by a wait() on every rank are paired in
// program order, as NCCL pairs them.
#include <torch/extension.h>

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pccl.h"

namespace pccl_torch {

static thread_local std::string current_tag; // pccl_torch.tag(...)

// PCCL_TORCH_TRACE=1: every claim, registration, issue and wait on stderr,
// flushed at once (a hang's last lines say where each rank stopped).
static const bool tracing = getenv("PCCL_TORCH_TRACE") && atoi(getenv("PCCL_TORCH_TRACE")) > 0;
#define TRACE(...)                                                                                           \
    do {                                                                                                     \
        if (tracing) {                                                                                       \
            fprintf(stderr, "pccl_torch[%d]: ", (int)getpid());                                             \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fputc('\n', stderr);                                                                            \
            fflush(stderr);                                                                                  \
        }                                                                                                    \
    } while (0)

static void check(pcclComm_t comm, pcclResult_t r, const char *what)
{
    TORCH_CHECK(r == pcclSuccess, "pccl: ", what, ": ", pcclGetErrorString(r), ": ", pcclGetLastError(comm));
}

static std::vector<uint8_t> bytes(const std::string &s) { return std::vector<uint8_t>(s.begin(), s.end()); }
static std::string str(const std::vector<uint8_t> &v) { return std::string(v.begin(), v.end()); }

static pcclDataType_t dtype_of(const at::Tensor &t)
{
    switch (t.scalar_type()) {
    case at::kFloat: return pcclFloat32;
    case at::kHalf: return pcclFloat16;
    case at::kBFloat16: return pcclBfloat16;
    case at::kDouble: return pcclFloat64;
    case at::kInt: return pcclInt32;
    case at::kLong: return pcclInt64;
    case at::kByte: return pcclUint8;
    case at::kChar: return pcclInt8;
    default: TORCH_CHECK(false, "pccl: tensors of dtype ", t.scalar_type(), " are not supported");
    }
    return pcclFloat32; // not reached
}

static pcclRedOp_t op_of(const c10d::ReduceOp &op)
{
    switch (op.op_) {
    case c10d::ReduceOp::SUM: return pcclSum;
    case c10d::ReduceOp::PRODUCT: return pcclProd;
    case c10d::ReduceOp::MIN: return pcclMin;
    case c10d::ReduceOp::MAX: return pcclMax;
    case c10d::ReduceOp::AVG: return pcclAvg;
    default: TORCH_CHECK(false, "pccl: reduce op ", (int)op.op_, " is not supported (sum, product, min, max, avg)");
    }
    return pcclSum; // not reached
}

// A collective's key: what ranks agree on (the slot's description) and the tag.
struct Key {
    int kind, dtype, op, root;
    int64_t count;
    std::string tag;
    // std::to_string, not a std::ostringstream: a stream's insertion crashed
    // (SIGSEGV inside basic_ostream::_M_insert<long>) in this extension
    // under torch 2.11 on the GPU host, whatever the module loading.
    std::string desc() const
    {
        return std::to_string(kind) + ',' + std::to_string(dtype) + ',' + std::to_string(count) + ',' +
               std::to_string(op) + ',' + std::to_string(root);
    }
    std::string name() const { return desc() + (tag.empty() ? "" : "#" + tag); }
};

static const char *kind_name(int k)
{
    static const char *n[] = {"all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "reduce", "broadcast"};
    return k >= 0 && k < 5 ? n[k] : "?";
}

// What the last call of a key left: whether it was waited for.
struct Call {
    int id;
    uint64_t ticket;
    bool waited = false;
};

class Work : public c10d::Work {
  public:
    Work(c10d::OpType type, int rank, pcclComm_t comm, std::shared_ptr<Call> call, std::vector<at::Tensor> out,
         int dev, bool host_wait)
        : c10d::Work(rank, type), comm_(comm), call_(std::move(call)), out_(std::move(out)), dev_(dev),
          host_wait_(host_wait)
    {
    }
    bool isCompleted() override
    {
        int done = 0;
        check(comm_, pcclTestRun(comm_, call_->id, call_->ticket, &done), "pcclTestRun");
        return done;
    }
    bool isSuccess() const override { return true; } // failures raise in the calls
    // Stream order: the current stream's later work waits for the collective.
    bool wait(std::chrono::milliseconds) override
    {
        call_->waited = true;
        TRACE("wait collective %d ticket %llu (%s)", call_->id, (unsigned long long)call_->ticket,
              host_wait_ ? "host" : "stream");
        if (host_wait_) {
            check(comm_, pcclWaitRun(comm_, call_->id, call_->ticket), "pcclWaitRun");
        } else {
            auto s = c10::cuda::getCurrentCUDAStream(dev_);
            check(comm_, pcclStreamWaitRun(comm_, call_->id, call_->ticket, s.stream()), "pcclStreamWaitRun");
        }
        return true;
    }
    void synchronize() override { wait(std::chrono::milliseconds(0)); }
    std::vector<at::Tensor> result() override { return out_; }

  private:
    pcclComm_t comm_;
    std::shared_ptr<Call> call_;
    std::vector<at::Tensor> out_;
    int dev_;
    bool host_wait_;
};

class Backend : public c10d::Backend {
  public:
    Backend(const c10::intrusive_ptr<c10d::Store> &store, int rank, int size)
        : c10d::Backend(rank, size), store_(store)
    {
        dev_ = c10::cuda::current_device();
        store_->set("pccl/dev/" + std::to_string(rank), bytes(std::to_string(dev_)));
        std::string devs;
        for (int r = 0; r < size; r++) devs += (r ? "," : "") + str(store_->get("pccl/dev/" + std::to_string(r)));
        setenv("PCCL_DEVICE_OF_RANK", devs.c_str(), 1); // pcclCommInitRank's devices: the ranks' current ones
        pcclUniqueId uid;
        if (rank == 0) {
            check(nullptr, pcclGetUniqueId(&uid), "pcclGetUniqueId");
            store_->set("pccl/uid", std::vector<uint8_t>(uid.internal, uid.internal + sizeof uid.internal));
        } else {
            auto v = store_->get("pccl/uid");
            TORCH_CHECK(v.size() == sizeof uid.internal, "pccl: bad unique id in the store");
            memcpy(uid.internal, v.data(), sizeof uid.internal);
        }
        c10::cuda::CUDAGuard g(dev_);
        check(nullptr, pcclCommInitRank(&comm_, size, uid, rank), "pcclCommInitRank");
    }
    ~Backend() override
    {
        if (comm_) pcclCommDestroy(comm_);
    }
    const std::string getBackendName() const override { return "pccl"; }
    // destroy_process_group and aborts (virtual in recent c10d::Backend;
    // without `override`, so that this builds against versions without them)
    void shutdown()
    {
        if (comm_) pcclCommDestroy(comm_);
        comm_ = nullptr;
    }
    void abort()
    {
        if (comm_) pcclCommAbort(comm_);
        comm_ = nullptr;
    }

    c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor> &ts, const c10d::AllreduceOptions &o) override
    {
        auto &t = one(ts, "all_reduce");
        return run(c10d::OpType::ALLREDUCE, {pcclCollAllReduce, dtype_of(t), op_of(o.reduceOp), 0, t.numel(), ""},
                   t, t, {t});
    }
    c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor &out, at::Tensor &in,
                                                   const c10d::AllgatherOptions &) override
    {
        dense(out, "all_gather_into_tensor output");
        dense(in, "all_gather_into_tensor input");
        TORCH_CHECK(out.numel() == in.numel() * getSize() && out.scalar_type() == in.scalar_type(),
                    "pccl: all_gather_into_tensor needs an output of world_size x the input's elements, same dtype");
        return run(c10d::OpType::_ALLGATHER_BASE, {pcclCollAllGather, dtype_of(in), 0, 0, in.numel(), ""}, in, out,
                   {out, in});
    }
    c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(at::Tensor &out, at::Tensor &in,
                                                        const c10d::ReduceScatterOptions &o) override
    {
        dense(out, "reduce_scatter_tensor output");
        dense(in, "reduce_scatter_tensor input");
        TORCH_CHECK(in.numel() == out.numel() * getSize() && out.scalar_type() == in.scalar_type(),
                    "pccl: reduce_scatter_tensor needs an input of world_size x the output's elements, same dtype");
        return run(c10d::OpType::_REDUCE_SCATTER_BASE,
                   {pcclCollReduceScatter, dtype_of(in), op_of(o.reduceOp), 0, out.numel(), ""}, in, out, {out, in});
    }
    c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor> &ts, const c10d::ReduceOptions &o) override
    {
        auto &t = one(ts, "reduce");
        return run(c10d::OpType::REDUCE,
                   {pcclCollReduce, dtype_of(t), op_of(o.reduceOp), (int)o.rootRank, t.numel(), ""}, t, t, {t});
    }
    c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor> &ts, const c10d::BroadcastOptions &o) override
    {
        auto &t = one(ts, "broadcast");
        return run(c10d::OpType::BROADCAST, {pcclCollBroadcast, dtype_of(t), 0, (int)o.rootRank, t.numel(), ""}, t,
                   t, {t});
    }
    // A one-element all-reduce, waited for on the host (as NCCL's barrier
    // synchronizes the device).
    c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions &) override
    {
        if (!barrier_buf_.defined())
            barrier_buf_ = at::zeros({1}, at::TensorOptions().device(at::Device(at::kCUDA, dev_)).dtype(at::kInt));
        Key k{pcclCollAllReduce, pcclInt32, pcclSum, 0, 1, "pccl.barrier"};
        auto w = run(c10d::OpType::BARRIER, k, barrier_buf_, barrier_buf_, {barrier_buf_}, true);
        w->wait(std::chrono::milliseconds(0));
        return w;
    }

    // Registered keys, in slot (= collective id) order: for tests.
    std::vector<std::string> registered() const { return names_; }
    pcclComm_t comm() const { return comm_; }

  private:
    at::Tensor &one(std::vector<at::Tensor> &ts, const char *what)
    {
        TORCH_CHECK(ts.size() == 1, "pccl: ", what, " takes one tensor per process (one process per GPU)");
        dense(ts[0], what);
        return ts[0];
    }
    void dense(const at::Tensor &t, const char *what)
    {
        TORCH_CHECK(t.is_cuda() && t.get_device() == dev_, "pccl: ", what, " must be on cuda:", dev_,
                    " (the process group's device), not ", t.device());
        TORCH_CHECK(t.is_contiguous(), "pccl: ", what, " must be contiguous");
    }

    // The collective id of a key: claimed in the store by the first rank to
    // meet it, registered in slot order everywhere (see the top).
    int id_for(const Key &k)
    {
        std::string name = k.name();
        auto it = ids_.find(name);
        if (it != ids_.end()) return it->second;
        int slot;
        TRACE("claim %s", name.c_str());
        if (store_->add("pccl/claim/" + name, 1) == 1) {
            slot = (int)store_->add("pccl/nslots", 1) - 1;
            store_->set("pccl/slot/" + std::to_string(slot), bytes(name));
            store_->set("pccl/keyslot/" + name, bytes(std::to_string(slot)));
        } else {
            slot = std::stoi(str(store_->get("pccl/keyslot/" + name)));
        }
        TRACE("%s is slot %d", name.c_str(), slot);
        while ((int)names_.size() <= slot) register_slot((int)names_.size());
        return ids_.at(name);
    }
    void register_slot(int s)
    {
        std::string name = str(store_->get("pccl/slot/" + std::to_string(s)));
        int kind, dtype, op, root;
        long long count;
        TORCH_CHECK(sscanf(name.c_str(), "%d,%d,%lld,%d,%d", &kind, &dtype, &count, &op, &root) == 5,
                    "pccl: bad collective description '", name, "' in the store (slot ", s, ")");
        int id = -1;
        pcclResult_t r;
        size_t n = (size_t)count;
        auto dt = (pcclDataType_t)dtype;
        auto ro = (pcclRedOp_t)op;
        switch (kind) {
        case pcclCollAllReduce: r = pcclRegisterAllReduce(comm_, n, dt, ro, 0, &id); break;
        case pcclCollAllGather: r = pcclRegisterAllGather(comm_, n, dt, 0, &id); break;
        case pcclCollReduceScatter: r = pcclRegisterReduceScatter(comm_, n, dt, ro, 0, &id); break;
        case pcclCollReduce: r = pcclRegisterReduce(comm_, n, dt, ro, root, 0, &id); break;
        default: r = pcclRegisterBroadcast(comm_, n, dt, root, 0, &id); break;
        }
        check(comm_, r, "registering a collective");
        TRACE("registered slot %d (%s) as collective %d", s, name.c_str(), id);
        TORCH_CHECK(id == s, "pccl: slot ", s, " registered as collective ", id);
        ids_[name] = id;
        names_.push_back(name);
        issued_.push_back(0);
    }

    c10::intrusive_ptr<c10d::Work> run(c10d::OpType type, Key k, at::Tensor &in, at::Tensor &out,
                                       std::vector<at::Tensor> keep, bool host_wait = false)
    {
        if (k.tag.empty()) k.tag = current_tag;
        int id = id_for(k);
        std::string name = k.name();
        auto last = last_.find(name);
        if (k.tag.empty() && last != last_.end() && !last->second->waited) {
            int done = 0;
            check(comm_, pcclTestRun(comm_, last->second->id, last->second->ticket, &done), "pcclTestRun");
            TORCH_CHECK(done, "pccl: a second untagged ", kind_name(k.kind), " of the same dtype and size (", name,
                        ") was issued while the first is neither complete nor waited for; ranks that issue such "
                        "collectives in different orders would pair them wrongly. Give each its own tag "
                        "(with pccl_torch.tag('name'): ...), or wait() for the first before issuing the second.");
        }
        // At most PCCL_MAX_PENDING invocations of a collective outstanding:
        // beyond, wait for the oldest on the host (rare: the CPU that far ahead).
        if (issued_[id] >= PCCL_MAX_PENDING)
            check(comm_, pcclWaitRun(comm_, id, issued_[id] - PCCL_MAX_PENDING + 1), "pcclWaitRun");
        reap();
        c10::cuda::CUDAGuard g(dev_);
        auto s = c10::cuda::getCurrentCUDAStream(dev_);
        auto call = std::make_shared<Call>();
        call->id = id;
        TRACE("issue %s: collective %d on stream %p", name.c_str(), id, (void *)s.stream());
        check(comm_, pcclRunAfter(comm_, id, in.data_ptr(), out.data_ptr(), s.stream(), &call->ticket),
              "pcclRunAfter");
        TRACE("issued %s: collective %d ticket %llu", name.c_str(), id, (unsigned long long)call->ticket);
        issued_[id] = call->ticket;
        last_[name] = call;
        inflight_.push_back({call, keep}); // the memory stays ours until the daemon is done with it
        return c10::make_intrusive<Work>(type, getRank(), comm_, call, std::vector<at::Tensor>{out}, dev_, host_wait);
    }
    // Drops the tensors of completed invocations (oldest first).
    void reap()
    {
        while (!inflight_.empty()) {
            int done = 0;
            auto &f = inflight_.front();
            if (pcclTestRun(comm_, f.call->id, f.call->ticket, &done) != pcclSuccess || !done) break;
            inflight_.pop_front();
        }
    }

    struct Held {
        std::shared_ptr<Call> call;
        std::vector<at::Tensor> keep;
    };
    c10::intrusive_ptr<c10d::Store> store_;
    pcclComm_t comm_ = nullptr;
    int dev_ = 0;
    std::map<std::string, int> ids_;
    std::vector<std::string> names_;
    std::vector<uint64_t> issued_;
    std::map<std::string, std::shared_ptr<Call>> last_;
    std::deque<Held> inflight_;
    at::Tensor barrier_buf_;
};

static c10::intrusive_ptr<c10d::Backend> create(const c10::intrusive_ptr<c10d::Store> &store, int rank, int size)
{
    return c10::make_intrusive<Backend>(store, rank, size);
}

static Backend &as_pccl(const c10::intrusive_ptr<c10d::Backend> &b)
{
    auto *p = dynamic_cast<Backend *>(b.get());
    TORCH_CHECK(p, "pccl: not a pccl backend (", b->getBackendName(), ")");
    return *p;
}

} // namespace pccl_torch

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.doc() = "pccl's torch.distributed backend (see pccl_torch/__init__.py)";
    m.def("create_backend", &pccl_torch::create, "the backend of one process group", py::arg("store"),
          py::arg("rank"), py::arg("size"));
    m.def("set_tag", [](const std::string &t) { pccl_torch::current_tag = t; });
    m.def("get_tag", []() { return pccl_torch::current_tag; });
    m.def("registered", [](const c10::intrusive_ptr<c10d::Backend> &b) { return pccl_torch::as_pccl(b).registered(); },
          "the keys registered on this rank, in collective-id order");
    m.def("stats", [](const c10::intrusive_ptr<c10d::Backend> &b) {
        pcclStats_t s;
        auto c = pccl_torch::as_pccl(b).comm();
        pccl_torch::check(c, pcclCommGetStats(c, &s), "pcclCommGetStats");
        return py::dict(py::arg("completed") = s.completed, py::arg("preemptions") = s.preemptions,
                        py::arg("quits") = s.quits, py::arg("launches") = s.launches);
    });
}
