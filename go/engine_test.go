package cuzk_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/go-state-types/proof"
	"github.com/ipfs/go-cid"

	cuzk "cuzk.dev/go"
)

func engineCode(err error) cuzk.EngineCode {
	var e *cuzk.EngineError
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

func TestSubmittedPoStProofsVerify(t *testing.T) {
	s := sealedSector(t)
	winning, err := cuzk.SubmitWinningPoStWithVanilla(winningPoSt, minerID, postRandomness, [][]byte{vanillaProofOf(t, s, winningPoSt)}, cuzk.PriorityHigh)
	if err != nil {
		t.Fatal(err)
	}
	if state, err := winning.Poll(); err != nil || (state != cuzk.JobRunning && state != cuzk.JobDone) {
		t.Fatalf("Poll: %v, %v", state, err)
	}
	bytes, err := winning.Wait(-1)
	if err != nil || len(bytes) != 192 {
		t.Fatalf("Wait: %d bytes, %v", len(bytes), err)
	}
	expectVerifies(t, "submitted Winning PoSt", true)(s.verifyPoSt(winningPoSt, []proof.PoStProof{{PoStProof: winningPoSt, ProofBytes: bytes}}, postRandomness))
	if _, err := winning.Poll(); engineCode(err) != cuzk.CodeNotFound {
		t.Fatalf("a waited job is forgotten: Poll gave %v", err)
	}

	// A short timeout may pass first; the job goes on until it is waited for.
	window, err := cuzk.SubmitWindowPoStWithVanilla(windowPoSt, minerID, postRandomness, [][]byte{vanillaProofOf(t, s, windowPoSt)}, cuzk.PriorityDefault)
	if err != nil {
		t.Fatal(err)
	}
	for {
		bytes, err = window.Wait(20 * time.Millisecond)
		if !cuzk.IsTimeout(err) {
			break
		}
	}
	if err != nil || len(bytes) != 192 {
		t.Fatalf("Wait: %d bytes, %v", len(bytes), err)
	}
	expectVerifies(t, "submitted Window PoSt", true)(s.verifyPoSt(windowPoSt, []proof.PoStProof{{PoStProof: windowPoSt, ProofBytes: bytes}}, postRandomness))
}

func TestSubmittedJobsFailCancelAndReleaseWithCodes(t *testing.T) {
	s := sealedSector(t)
	bad, err := cuzk.SubmitWinningPoStWithVanilla(winningPoSt, minerID, postRandomness, [][]byte{[]byte("garbage")}, cuzk.PriorityDefault)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Wait(-1); engineCode(err) != cuzk.CodeProofFailed || err.Error() == "" {
		t.Fatalf("garbage vanilla proof: want CodeProofFailed with a message, got %v", err)
	}

	// Cancelled before it is done, or done before the cancel: never both.
	job, err := cuzk.SubmitWinningPoStWithVanilla(winningPoSt, minerID, postRandomness, [][]byte{vanillaProofOf(t, s, winningPoSt)}, cuzk.PriorityLow)
	if err != nil {
		t.Fatal(err)
	}
	cancelErr := job.Cancel()
	bytes, waitErr := job.Wait(-1)
	switch {
	case cancelErr == nil && engineCode(waitErr) == cuzk.CodeCancelled:
	case engineCode(cancelErr) == cuzk.CodeNotFound && waitErr == nil && len(bytes) == 192:
	default:
		t.Fatalf("Cancel gave %v, then Wait %d bytes, %v", cancelErr, len(bytes), waitErr)
	}

	released, err := cuzk.SubmitWinningPoStWithVanilla(winningPoSt, minerID, postRandomness, [][]byte{vanillaProofOf(t, s, winningPoSt)}, cuzk.PriorityLow)
	if err != nil {
		t.Fatal(err)
	}
	if err := released.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := released.Wait(0); engineCode(err) != cuzk.CodeNotFound {
		t.Fatalf("a released job is forgotten: Wait gave %v", err)
	}
}

func TestEngineStatusAndConfiguration(t *testing.T) {
	status, err := cuzk.EngineStatus()
	if err != nil {
		t.Fatal(err)
	}
	var report map[string]json.RawMessage
	if err := json.Unmarshal(status, &report); err != nil {
		t.Fatalf("status is not a JSON object: %v", err)
	}
	for _, key := range []string{"engine", "requests", "resident_parameters", "gpus"} {
		if _, ok := report[key]; !ok {
			t.Errorf("status lacks %q: %s", key, status)
		}
	}

	config, err := cuzk.EngineConfig()
	if err != nil {
		t.Fatal(err)
	}
	var settings map[string]json.RawMessage
	if err := json.Unmarshal(config, &settings); err != nil || settings["synthesis_threads"] == nil {
		t.Fatalf("config %s: %v", config, err)
	}
	same, _ := json.Marshal(map[string]json.RawMessage{"synthesis_threads": settings["synthesis_threads"]})
	if err := cuzk.ConfigureEngine(same); err != nil {
		t.Fatalf("setting the value in force: %v", err)
	}
	for _, bad := range []string{`{"synthesis_threads": "many"}`, `{"no_such_setting": 1}`, `not json`} {
		if err := cuzk.ConfigureEngine(json.RawMessage(bad)); engineCode(err) != cuzk.CodeInvalidArgument {
			t.Errorf("ConfigureEngine(%s): want CodeInvalidArgument, got %v", bad, err)
		}
	}
	if after, _ := cuzk.EngineConfig(); string(after) != string(config) {
		t.Errorf("bad settings changed the configuration: %s, was %s", after, config)
	}
}

func TestSubmittedUpdateProofVerifies(t *testing.T) {
	s := sealedSector(t)
	vanilla, err := updateVanillaProofs(s)
	if err != nil {
		t.Fatal(err)
	}
	job, err := cuzk.SubmitUpdateProofWithVanilla(updateProof, s.sealedCID, s.updatedSealedCID, s.updatedUnsealedCID, vanilla, cuzk.PriorityDefault)
	if err != nil {
		t.Fatal(err)
	}
	proofBytes, err := job.Wait(-1)
	if err != nil {
		t.Fatal(err)
	}
	expectVerifies(t, "VerifyUpdateProof", true)(cuzk.SectorUpdate.VerifyUpdateProof(s.updateInfo(proofBytes)))
	if _, err := cuzk.SubmitUpdateProofWithVanilla(updateProof, cid.Undef, s.updatedSealedCID, s.updatedUnsealedCID, vanilla, cuzk.PriorityDefault); err == nil {
		t.Error("an undefined sealed CID was accepted")
	}
}

func TestParamsPreloadAndEvict(t *testing.T) {
	residentWith := func(fragment string) bool {
		status, err := cuzk.EngineStatus()
		if err != nil {
			t.Fatal(err)
		}
		var report struct {
			Resident []struct {
				CircuitID string `json:"circuit_id"`
			} `json:"resident_parameters"`
		}
		if err := json.Unmarshal(status, &report); err != nil {
			t.Fatal(err)
		}
		for _, r := range report.Resident {
			if strings.Contains(r.CircuitID, fragment) {
				return true
			}
		}
		return false
	}
	if err := cuzk.PreloadParams(winningPoSt); err != nil {
		t.Fatal(err)
	}
	if !residentWith("proof-of-spacetime") {
		t.Fatal("the Winning PoSt key is not resident after PreloadParams")
	}
	if err := cuzk.EvictParams(winningPoSt); err != nil {
		t.Fatal(err)
	}
	if err := cuzk.EvictParams(winningPoSt); engineCode(err) != cuzk.CodeNotFound {
		t.Errorf("evicting twice: want CodeNotFound, got %v", err)
	}
	if err := cuzk.PreloadParams(abi.RegisteredSealProof(999)); err == nil {
		t.Error("an unknown seal proof type was accepted")
	}
	if err := cuzk.PreloadParams(abi.RegisteredPoStProof_StackedDrgWinning64GiBV1); err == nil {
		t.Error("preloading parameters that are not in the cache succeeded")
	}
}

func TestTypedSettingsRoundTrip(t *testing.T) {
	before, err := cuzk.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if before.HostMemoryBudget == nil || before.SynthesisThreads == nil || before.ParamCache == nil || before.PostMemoryReserve == nil {
		t.Fatalf("settings in force lack fields: %+v", before)
	}
	depth := *before.ReadyQueueDepth + 1
	if err := cuzk.Configure(cuzk.EngineSettings{ReadyQueueDepth: &depth}); err != nil {
		t.Fatal(err)
	}
	after, err := cuzk.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if *after.ReadyQueueDepth != depth || *after.HostMemoryBudget != *before.HostMemoryBudget {
		t.Errorf("want only ready_queue_depth changed to %d: before %+v, after %+v", depth, before, after)
	}
	zero := uint(0)
	if err := cuzk.Configure(cuzk.EngineSettings{SynthesisThreads: &zero}); engineCode(err) != cuzk.CodeInvalidArgument {
		t.Errorf("zero synthesis threads: want CodeInvalidArgument, got %v", err)
	}
	if err := cuzk.Configure(before); err != nil {
		t.Fatal(err)
	}
}

func TestGPUSelectionRoundTrip(t *testing.T) {
	before, err := cuzk.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if before.GPUs == nil {
		t.Fatalf("settings in force lack gpus: %+v", before)
	}
	defer func() {
		if err := cuzk.Configure(cuzk.EngineSettings{GPUs: before.GPUs}); err != nil {
			t.Error(err)
		}
	}()
	for _, want := range []cuzk.GPUSelection{{Indices: []uint{}}, {All: true}} {
		if err := cuzk.Configure(cuzk.EngineSettings{GPUs: &want}); err != nil {
			t.Fatal(err)
		}
		got, err := cuzk.Settings()
		if err != nil {
			t.Fatal(err)
		}
		if got.GPUs.All != want.All || len(got.GPUs.Indices) != len(want.Indices) {
			t.Errorf("configured gpus %+v, in force %+v", want, *got.GPUs)
		}
	}
	budget := uint64(24 << 30)
	if err := cuzk.Configure(cuzk.EngineSettings{GPUMemoryBudget: &budget}); err != nil {
		t.Fatal(err)
	}
	if got, err := cuzk.Settings(); err != nil || got.GPUMemoryBudget == nil || *got.GPUMemoryBudget != budget {
		t.Errorf("configured a GPU memory budget of %d, in force %+v (%v)", budget, got, err)
	}
	if err := cuzk.ConfigureEngine(json.RawMessage(`{"gpu_memory_budget": null}`)); err != nil {
		t.Fatal(err)
	}
	if got, err := cuzk.Settings(); err != nil || got.GPUMemoryBudget != nil {
		t.Errorf("lifted the GPU memory budget, in force %+v (%v)", got, err)
	}
	// Full synthesis was removed: its setting is refused, not ignored.
	if err := cuzk.ConfigureEngine(json.RawMessage(`{"synthesis": "full"}`)); engineCode(err) != cuzk.CodeInvalidArgument {
		t.Errorf("the removed synthesis setting: want CodeInvalidArgument, got %v", err)
	}
	off := false
	if err := cuzk.Configure(cuzk.EngineSettings{MatricesFiles: &off}); err != nil {
		t.Fatal(err)
	}
	if got, err := cuzk.Settings(); err != nil || got.MatricesFiles == nil || *got.MatricesFiles {
		t.Errorf("configured no matrices files, in force %+v (%v)", got, err)
	}
	for _, fallback := range []string{"error", "cpu"} {
		if err := cuzk.Configure(cuzk.EngineSettings{GPUFallback: &fallback}); err != nil {
			t.Fatal(err)
		}
		if got, err := cuzk.Settings(); err != nil || got.GPUFallback == nil || *got.GPUFallback != fallback {
			t.Errorf("configured GPU fallback %q, in force %+v (%v)", fallback, got, err)
		}
	}
	abort := "abort"
	if err := cuzk.Configure(cuzk.EngineSettings{GPUFallback: &abort}); engineCode(err) != cuzk.CodeInvalidArgument {
		t.Errorf("GPU fallback %q: want CodeInvalidArgument, got %v", abort, err)
	}
	// Index 64 is no usable GPU on any machine this runs on.
	bad := cuzk.GPUSelection{Indices: []uint{64}}
	if err := cuzk.Configure(cuzk.EngineSettings{GPUs: &bad}); engineCode(err) != cuzk.CodeInvalidArgument {
		t.Errorf("GPU 64: want CodeInvalidArgument, got %v", err)
	}
}
