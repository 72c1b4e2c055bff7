package cuzk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "cuzk.dev/go/cuzkv1"

	cuzk "cuzk.dev/go"
)

// cuzk-daemon (daemon/) driven as Curio drives it: a gRPC client generated
// from the daemon's .proto (go/cuzkv1) over a unix socket, each proof kind
// encoded as Curio encodes it, every proof checked by the verifiers.

// daemonProc is a cuzk-daemon process on a socket of its own.
type daemonProc struct {
	cmd    *exec.Cmd
	socket string
	log    string
	exited chan error
}

// daemonBinary is the daemon built by `cargo build --release -p cuzk-daemon`
// (or CUZK_DAEMON).
func daemonBinary(t *testing.T) string {
	if p := os.Getenv("CUZK_DAEMON"); p != "" {
		return p
	}
	p, err := filepath.Abs(filepath.Join("..", "target", "release", "cuzk-daemon"))
	if err == nil {
		_, err = os.Stat(p)
	}
	if err != nil {
		t.Fatalf("cuzk-daemon is not built (cargo build --release -p cuzk-daemon): %v", err)
	}
	return p
}

func startDaemon(t *testing.T) *daemonProc {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the daemon's tests prove real sectors")
	}
	dir := t.TempDir()
	d := &daemonProc{socket: filepath.Join(dir, "cuzk.sock"), log: filepath.Join(dir, "daemon.log"), exited: make(chan error, 1)}
	logFile, err := os.Create(d.log)
	if err != nil {
		t.Fatal(err)
	}
	// The parameter cache comes from the environment (TestMain sets it).
	d.cmd = exec.Command(daemonBinary(t), "--listen", "unix://"+d.socket)
	d.cmd.Stdout, d.cmd.Stderr = logFile, logFile
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.exited <- d.cmd.Wait(); logFile.Close() }()
	t.Cleanup(func() {
		if d.cmd.ProcessState == nil {
			d.cmd.Process.Kill()
			<-d.exited
		}
		if t.Failed() {
			out, _ := os.ReadFile(d.log)
			t.Logf("daemon log:\n%s", out)
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(d.socket); err == nil {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon does not listen")
		}
	}
}

// client is a connection of its own to the daemon.
func (d *daemonProc) client(t *testing.T) pb.ProvingEngineClient {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+d.socket, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(1<<30), grpc.MaxCallSendMsgSize(1<<30)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return pb.NewProvingEngineClient(conn)
}

// Requests as Curio builds them.

func porepRequest(s *sector) *pb.SubmitProofRequest {
	// Curio's wrapper: the C1 output as Go encodes []byte in JSON (base64).
	wrapper, _ := json.Marshal(struct {
		SectorNum  abi.SectorNumber
		Phase1Out  []byte
		SectorSize abi.SectorSize
	}{sectorNum, s.commit1, 2048})
	return &pb.SubmitProofRequest{ProofKind: pb.ProofKind_POREP_SEAL_COMMIT, SectorSize: 2048,
		RegisteredProof: uint64(sealProof), Priority: pb.Priority_NORMAL, VanillaProof: wrapper,
		SectorNumber: uint64(sectorNum), MinerId: uint64(minerID)}
}

func postRequest(kind pb.ProofKind, postType abi.RegisteredPoStProof, vanilla []byte) *pb.SubmitProofRequest {
	priority := pb.Priority_HIGH
	if kind == pb.ProofKind_WINNING_POST {
		priority = pb.Priority_CRITICAL
	}
	return &pb.SubmitProofRequest{ProofKind: kind, SectorSize: 2048, RegisteredProof: uint64(postType),
		Priority: priority, VanillaProofs: [][]byte{vanilla}, Randomness: postRandomness, MinerId: uint64(minerID)}
}

func updateRequest(t *testing.T, s *sector) *pb.SubmitProofRequest {
	t.Helper()
	vanilla, err := updateVanillaProofs(s)
	if err != nil {
		t.Fatal(err)
	}
	commROld, err1 := commcid.CIDToReplicaCommitmentV1(s.sealedCID)
	commRNew, err2 := commcid.CIDToReplicaCommitmentV1(s.updatedSealedCID)
	commDNew, err3 := commcid.CIDToDataCommitmentV1(s.updatedUnsealedCID)
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	return &pb.SubmitProofRequest{ProofKind: pb.ProofKind_SNAP_DEALS_UPDATE, SectorSize: 2048,
		RegisteredProof: uint64(updateProof), Priority: pb.Priority_NORMAL, VanillaProofs: vanilla,
		CommROld: commROld, CommRNew: commRNew, CommDNew: commDNew}
}

func prove(t *testing.T, c pb.ProvingEngineClient, r *pb.SubmitProofRequest) *pb.AwaitProofResponse {
	t.Helper()
	resp, err := c.Prove(context.Background(), &pb.ProveRequest{Submit: r})
	if err != nil {
		t.Fatalf("Prove %v: %v", r.ProofKind, err)
	}
	return resp.Result
}

func completed(t *testing.T, what string, r *pb.AwaitProofResponse) []byte {
	t.Helper()
	if r.Status != pb.AwaitProofResponse_COMPLETED || len(r.Proof) == 0 {
		t.Fatalf("%s: %v %q", what, r.Status, r.ErrorMessage)
	}
	return r.Proof
}

func TestDaemonProvesEveryKindAsCurioSendsIt(t *testing.T) {
	d := startDaemon(t)
	s := sealedSector(t)
	c := d.client(t)

	winning := completed(t, "Winning PoSt", prove(t, c, postRequest(pb.ProofKind_WINNING_POST, winningPoSt, vanillaProofOf(t, s, winningPoSt))))
	expectVerifies(t, "the daemon's Winning PoSt", true)(cuzk.VerifyWinningPoSt(
		s.winningVerifyInfo([]proof.PoStProof{{PoStProof: winningPoSt, ProofBytes: winning}})))
	window := completed(t, "Window PoSt partition", prove(t, c, postRequest(pb.ProofKind_WINDOW_POST_PARTITION, windowPoSt, vanillaProofOf(t, s, windowPoSt))))
	expectVerifies(t, "the daemon's Window PoSt partition", true)(cuzk.VerifyWindowPoSt(
		s.windowVerifyInfo([]proof.PoStProof{{PoStProof: windowPoSt, ProofBytes: window}})))
	update := completed(t, "SnapDeals", prove(t, c, updateRequest(t, s)))
	expectVerifies(t, "the daemon's update proof", true)(cuzk.SectorUpdate.VerifyUpdateProof(s.updateInfo(update)))

	// The C2 is in flight when the daemon is told to stop: it finishes, is
	// returned, and the daemon exits cleanly, removing its socket.
	type result struct {
		resp *pb.ProveResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := c.Prove(context.Background(), &pb.ProveRequest{Submit: porepRequest(s)})
		done <- result{resp, err}
	}()
	waitFor(t, "the C2 in the daemon's queues", func() bool {
		st, err := c.GetStatus(context.Background(), &pb.GetStatusRequest{})
		return err == nil && inQueues(st, "porep_seal_commit") == 1
	})
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("the C2 in flight at SIGTERM: %v", r.err)
	}
	c2 := completed(t, "C2 during shutdown", r.resp.Result)
	expectVerifies(t, "the daemon's C2", true)(cuzk.VerifySeal(s.sealVerifyInfo(c2)))
	select {
	case err := <-d.exited:
		if err != nil {
			t.Fatalf("the daemon exited with %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the daemon did not exit after SIGTERM")
	}
	if _, err := os.Stat(d.socket); !os.IsNotExist(err) {
		t.Fatalf("the socket is left behind: %v", err)
	}
}

func inQueues(st *pb.GetStatusResponse, kind string) uint32 {
	for _, q := range st.Queues {
		if q.ProofKind == kind {
			return q.Pending + q.InProgress
		}
	}
	return 0
}

func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !done(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func TestDaemonAsyncCallsStatusAndBadRequests(t *testing.T) {
	d := startDaemon(t)
	s := sealedSector(t)
	c := d.client(t)
	ctx := context.Background()
	vanilla := vanillaProofOf(t, s, winningPoSt)

	// Submit, resubmit (the same job), await.
	r := postRequest(pb.ProofKind_WINNING_POST, winningPoSt, vanilla)
	r.RequestId = "winning-1"
	sub, err := c.SubmitProof(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.SubmitProof(ctx, r)
	if err != nil || again.JobId != sub.JobId {
		t.Fatalf("resubmission: %v, %v (first %v)", again, err, sub.JobId)
	}
	waited, err := c.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: sub.JobId, TimeoutMs: 120_000})
	if err != nil {
		t.Fatal(err)
	}
	proofBytes := completed(t, "awaited Winning PoSt", waited)
	expectVerifies(t, "the awaited Winning PoSt", true)(cuzk.VerifyWinningPoSt(
		s.winningVerifyInfo([]proof.PoStProof{{PoStProof: winningPoSt, ProofBytes: proofBytes}})))
	if waited.TotalMs == 0 || waited.GpuComputeMs == 0 {
		t.Errorf("stage times not reported: total %d, proving %d ms", waited.TotalMs, waited.GpuComputeMs)
	}
	if waited.SrsLoadMs+waited.QueueWaitMs > waited.TotalMs {
		t.Errorf("setup %d + queue wait %d ms exceed the total %d ms", waited.SrsLoadMs, waited.QueueWaitMs, waited.TotalMs)
	}
	if cancel, err := c.CancelProof(ctx, &pb.CancelProofRequest{JobId: sub.JobId}); err != nil || cancel.WasRunning {
		t.Fatalf("cancelling a finished job: %v, %v", cancel, err)
	}
	unknown, err := c.AwaitProof(ctx, &pb.AwaitProofRequest{JobId: "job-unknown", TimeoutMs: 10})
	if err != nil || unknown.Status != pb.AwaitProofResponse_UNKNOWN {
		t.Fatalf("awaiting an unknown job: %v, %v", unknown, err)
	}

	// Bad requests: FAILED with a message saying what was wrong.
	withKind := func(kind pb.ProofKind, change func(*pb.SubmitProofRequest)) *pb.SubmitProofRequest {
		r := postRequest(kind, winningPoSt, vanilla)
		change(r)
		return r
	}
	bad := map[string]*pb.SubmitProofRequest{
		"unknown proof_kind":            {ProofKind: 42},
		"proof_kind is unspecified":     {},
		"not Curio's PoRep JSON":        {ProofKind: pb.ProofKind_POREP_SEAL_COMMIT, VanillaProof: []byte("{}")},
		"randomness must be 32 bytes":   withKind(pb.ProofKind_WINNING_POST, func(r *pb.SubmitProofRequest) { r.Randomness = r.Randomness[:31] }),
		"is not a Window PoSt proof":    withKind(pb.ProofKind_WINDOW_POST_PARTITION, func(*pb.SubmitProofRequest) {}),
		"vanilla_proofs is empty":       withKind(pb.ProofKind_WINNING_POST, func(r *pb.SubmitProofRequest) { r.VanillaProofs = nil }),
		"invalid RegisteredUpdateProof": {ProofKind: pb.ProofKind_SNAP_DEALS_UPDATE, RegisteredProof: 77, VanillaProofs: [][]byte{{1}}},
		"vanilla proof":                 withKind(pb.ProofKind_WINNING_POST, func(r *pb.SubmitProofRequest) { r.VanillaProofs = [][]byte{[]byte("garbage")} }),
	}
	for want, r := range bad {
		got := prove(t, c, r)
		if got.Status != pb.AwaitProofResponse_FAILED || !strings.Contains(got.ErrorMessage, want) {
			t.Errorf("%q: got %v %q", want, got.Status, got.ErrorMessage)
		}
	}

	st, err := c.GetStatus(ctx, &pb.GetStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st.TotalProofsCompleted != 1 || st.TotalProofsFailed != 1 || len(st.LoadedSrs) == 0 {
		t.Errorf("status: completed %d, failed %d (the garbage vanilla proof), %d resident keys",
			st.TotalProofsCompleted, st.TotalProofsFailed, len(st.LoadedSrs))
	}
	metrics, err := c.GetMetrics(ctx, &pb.GetMetricsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`cuzk_proofs_total{kind="winning_post",outcome="completed"} 1`,
		`cuzk_proofs_total{kind="winning_post",outcome="failed"} 1`,
		"# TYPE cuzk_partitions gauge",
		"cuzk_resident_key_bytes{circuit_id=",
	} {
		if !strings.Contains(metrics.PrometheusText, want) {
			t.Errorf("metrics lack %q:\n%s", want, metrics.PrometheusText)
		}
	}

	// Keys by the circuit id the status lists.
	id := st.LoadedSrs[0].CircuitId
	evicted, err := c.EvictSRS(ctx, &pb.EvictSrsRequest{CircuitId: id})
	if err != nil || !evicted.WasLoaded || evicted.FreedBytes == 0 {
		t.Fatalf("EvictSRS %s: %v, %v", id, evicted, err)
	}
	preloaded, err := c.PreloadSRS(ctx, &pb.PreloadSrsRequest{CircuitId: id})
	if err != nil || preloaded.AlreadyLoaded {
		t.Fatalf("PreloadSRS %s: %v, %v", id, preloaded, err)
	}
	if _, err := c.PreloadSRS(ctx, &pb.PreloadSrsRequest{CircuitId: "no-such-circuit"}); err == nil {
		t.Fatal("PreloadSRS of an unknown circuit id succeeded")
	}
}

func TestDaemonServes32ClientsAtOnce(t *testing.T) {
	d := startDaemon(t)
	s := sealedSector(t)
	vanilla := vanillaProofOf(t, s, winningPoSt)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		c := d.client(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := postRequest(pb.ProofKind_WINNING_POST, winningPoSt, vanilla)
			r.RequestId = fmt.Sprintf("client-%d", i)
			resp, err := c.Prove(context.Background(), &pb.ProveRequest{Submit: r})
			if err != nil {
				errs <- err
				return
			}
			if resp.Result.Status != pb.AwaitProofResponse_COMPLETED {
				errs <- fmt.Errorf("client %d: %v %q", i, resp.Result.Status, resp.Result.ErrorMessage)
				return
			}
			ok, err := cuzk.VerifyWinningPoSt(s.winningVerifyInfo([]proof.PoStProof{{PoStProof: winningPoSt, ProofBytes: resp.Result.Proof}}))
			if err != nil || !ok {
				errs <- fmt.Errorf("client %d: the proof does not verify: %v", i, err)
			}
			if _, err := c.GetStatus(context.Background(), &pb.GetStatusRequest{}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
