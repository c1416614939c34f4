#!/usr/bin/env python3
"""Data-parallel training of a small transformer whose gradient buckets are
all-reduced in a different random order on each rank (--order random), as
happens when ranks finish their backward passes in different orders.

With NCCL the ranks' collectives queue in one stream in different orders and
wait for each other: the run hangs; a watchdog catches it after --timeout s,
reports it, aborts the process group and exits 3.  With pccl (--backend pccl)
it trains.  With --order consistent both train, and their loss curves match
to float tolerance at the same seed (compare: `train_order.py compare A B`).

    python3 python/examples/train_order.py --backend pccl --order random --nprocs 2 --out results/train
    python3 python/examples/train_order.py --backend nccl --order random --nprocs 2 --timeout 60
    python3 python/examples/train_order.py compare A.csv B.csv [--tol 1e-5]

--share-gpu runs every rank on GPU 0 (pccl only: NCCL refuses two ranks on
one GPU).  Writes DIR/loss-<backend>-<order>.csv (step, loss, step_ms) from
rank 0 and one RESULT line.  Exit 0 trained, 3 hang, 1 other error.
"""
import argparse
import csv
import os
import random
import sys
import tempfile
import threading
import time


def model_and_data(args, rank, world, device):
    import torch
    import torch.nn as nn

    torch.manual_seed(args.seed)  # the same initial model on every rank
    vocab, d = 256, args.dim

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, d)
            self.pos = nn.Parameter(torch.randn(args.seq, d) * 0.02)
            layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True)
            self.enc = nn.TransformerEncoder(layer, args.layers, enable_nested_tensor=False)
            self.head = nn.Linear(d, vocab)

        def forward(self, x):
            mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1], device=x.device)
            return self.head(self.enc(self.emb(x) + self.pos, mask=mask, is_causal=True))

    model = LM().to(device)
    g = torch.Generator().manual_seed(args.seed + 1)
    # a learnable stream: each sequence counts up from a random start (mod vocab)
    starts = torch.randint(0, vocab, (args.steps, world * args.batch, 1), generator=g)
    seqs = (starts + torch.arange(args.seq + 1)) % vocab
    return model, seqs[:, rank * args.batch:(rank + 1) * args.batch].contiguous()


def buckets_of(model, nbuckets):
    """Parameters dealt into buckets of about equal size (DDP's bucketing)."""
    params = [p for p in model.parameters() if p.requires_grad]
    total = sum(p.numel() for p in params)
    out, cur, size = [], [], 0
    for p in params:
        cur.append(p)
        size += p.numel()
        if size >= total / nbuckets and len(out) < nbuckets - 1:
            out.append(cur)
            cur, size = [], 0
    if cur:
        out.append(cur)
    return out


def rank_main(rank, args, initfile, qerr):
    import faulthandler

    import torch
    import torch.distributed as dist
    import torch.nn.functional as F

    faulthandler.enable()  # a crash in a backend prints where it happened
    try:
        dev_index = 0 if args.share_gpu else rank
        torch.cuda.set_device(dev_index)
        device = torch.device("cuda", dev_index)
        if args.backend == "pccl":
            import pccl_torch
        from datetime import timedelta

        dist.init_process_group(args.backend, init_method=f"file://{initfile}", rank=rank, world_size=args.nprocs,
                                timeout=timedelta(seconds=args.timeout + 60))
        world = args.nprocs
        model, data = model_and_data(args, rank, world, device)
        opt = torch.optim.SGD(model.parameters(), lr=args.lr)
        buckets = buckets_of(model, args.buckets)
        flat = [torch.zeros(sum(p.numel() for p in b), device=device) for b in buckets]
        rng = random.Random(args.seed * 1000 + rank)
        last_step = [time.time(), -1]

        def watchdog():  # a step that never ends: report, abort, exit 3
            while True:
                time.sleep(1)
                if last_step[1] >= args.steps - 1:
                    return
                if time.time() - last_step[0] > args.timeout:
                    print(f"RESULT train backend={args.backend} order={args.order} rank={rank} outcome=HANG "
                          f"step={last_step[1] + 1} timeout_s={args.timeout} (no step completed; aborting the "
                          f"process group)", flush=True)
                    faulthandler.dump_traceback(all_threads=True)  # where each thread of this rank waits
                    if args.backend == "pccl":
                        try:
                            pg = dist.distributed_c10d._get_default_group()
                            print(f"rank {rank}: pccl stats {pccl_torch.stats(pg)}", flush=True)
                        except Exception as e:
                            print(f"rank {rank}: pccl stats: {e}", flush=True)
                    try:
                        dist.distributed_c10d._get_default_group()._get_backend(device).abort()
                    except Exception as e:  # the backend may not offer abort
                        print(f"rank {rank}: abort: {e}", flush=True)
                    os._exit(3)

        threading.Thread(target=watchdog, daemon=True).start()
        rows = []
        for step in range(args.steps):
            t0 = time.time()
            x = data[step].to(device)
            loss = F.cross_entropy(model(x[:, :-1]).reshape(-1, 256), x[:, 1:].reshape(-1))
            opt.zero_grad(set_to_none=False)
            loss.backward()
            for f, b in zip(flat, buckets):
                torch.cat([p.grad.reshape(-1) for p in b], out=f)
            order = list(range(len(flat)))
            if args.order == "random":
                rng.shuffle(order)
            works = []
            for i in order:
                if args.backend == "pccl":
                    with pccl_torch.tag(f"bucket{i}"):
                        works.append(dist.all_reduce(flat[i], async_op=True))
                else:
                    works.append(dist.all_reduce(flat[i], async_op=True))
            for w in works:
                w.wait()
            for f, b in zip(flat, buckets):
                off = 0
                for p in b:
                    p.grad.copy_(f[off:off + p.numel()].view_as(p.grad)).div_(world)
                    off += p.numel()
            opt.step()
            lv = loss.detach()
            dist.all_reduce(lv)  # the mean loss over ranks
            lv = lv.item() / world  # host sync: the step is done
            ms = (time.time() - t0) * 1e3
            last_step[:] = [time.time(), step]
            rows.append((step, lv, ms))
        if rank == 0:
            os.makedirs(args.out, exist_ok=True)
            path = os.path.join(args.out, f"loss-{args.backend}-{args.order}.csv")
            with open(path, "w", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(["step", "loss", "step_ms"])
                for r in rows:
                    w.writerow([r[0], f"{r[1]:.9g}", f"{r[2]:.3f}"])
            ms = sorted(r[2] for r in rows[len(rows) // 5:])
            print(f"RESULT train backend={args.backend} order={args.order} ranks={world} outcome=TRAINED "
                  f"steps={args.steps} first_loss={rows[0][1]:.4f} last_loss={rows[-1][1]:.4f} "
                  f"median_step_ms={ms[len(ms) // 2]:.2f} csv={path}", flush=True)
        dist.destroy_process_group()
        qerr.put((rank, None))
    except BaseException as e:
        import traceback

        print(f"rank {rank}: {traceback.format_exc()}", file=sys.stderr, flush=True)
        qerr.put((rank, "see above"))
        raise SystemExit(1) from e


def compare(a, b, tol):
    def load(p):
        with open(p) as fh:
            return [float(r["loss"]) for r in csv.DictReader(fh)]

    x, y = load(a), load(b)
    n = min(len(x), len(y))
    d = max(abs(x[i] - y[i]) / max(abs(x[i]), 1e-12) for i in range(n))
    ok = n > 0 and len(x) == len(y) and d <= tol
    print(f"RESULT compare steps={n} max_rel_diff={d:.3g} tol={tol:g} outcome={'MATCH' if ok else 'DIFFER'}")
    return 0 if ok else 1


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "compare":
        p = argparse.ArgumentParser(prog="train_order.py compare")
        p.add_argument("a")
        p.add_argument("b")
        p.add_argument("--tol", type=float, default=1e-5)
        a = p.parse_args(sys.argv[2:])
        return compare(a.a, a.b, a.tol)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=["pccl", "nccl"], default="pccl")
    p.add_argument("--order", choices=["random", "consistent"], default="random")
    p.add_argument("--nprocs", type=int, default=2)
    p.add_argument("--share-gpu", action="store_true", help="every rank on GPU 0 (pccl only)")
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--dim", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--buckets", type=int, default=6)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=60, help="seconds without a completed step: a hang")
    p.add_argument("--out", default="results/train-order")
    args = p.parse_args()
    if args.nprocs < 1 or args.steps < 1 or args.buckets < 1:
        p.error("--nprocs, --steps and --buckets must be >= 1")
    if args.share_gpu and args.backend == "nccl" and args.nprocs > 1:
        p.error("--share-gpu: NCCL refuses two ranks on one GPU")
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    import torch.multiprocessing as mp

    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    initfile = tempfile.mktemp(prefix="train-order-")
    ps = [ctx.Process(target=rank_main, args=(r, args, initfile, q)) for r in range(args.nprocs)]
    for pr in ps:
        pr.start()
    for pr in ps:
        pr.join()
    codes = [pr.exitcode for pr in ps]
    for r, c in enumerate(codes):
        if c:
            print(f"rank {r}: exit code {c} (negative: killed by that signal)", file=sys.stderr)
    errs = []
    while not q.empty():
        r, e = q.get()
        if e:
            errs.append(f"rank {r}: {e}")
    for e in errs:
        print(e, file=sys.stderr)
    if any(c == 3 for c in codes):
        return 3
    return 0 if all(c == 0 for c in codes) else 1


if __name__ == "__main__":
    sys.exit(main())
