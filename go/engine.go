package cuzk

// cuzk's own extension of the filecoin-ffi API: proofs submitted to the
// engine and awaited later, with a priority, plus the engine's status and
// configuration (docs/CONFIG.md). The blocking calls of this package run
// through the same engine.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"
)

// Priority orders queued work at partition boundaries; PriorityDefault takes
// the proof kind's (WinningPoSt high, WindowPoSt medium, C2 low).
type Priority int32

const (
	PriorityDefault Priority = iota
	PriorityLow
	PriorityMedium
	PriorityHigh
)

// JobState is where a submitted job is.
type JobState int32

const (
	JobRunning JobState = iota
	JobDone
	JobFailed
	JobCancelled
)

// EngineCode is the fixed result code of a cuzk_* call.
type EngineCode int32

const (
	CodeInvalidArgument EngineCode = 1 + iota
	CodeNotFound
	CodeTimeout
	CodeCancelled
	CodeProofFailed
	CodeInternalError
)

// EngineError is a failed engine call: its code and the library's message.
type EngineError struct {
	Code    EngineCode
	Message string
}

func (e *EngineError) Error() string {
	return fmt.Sprintf("cuzk engine (code %d): %s", e.Code, e.Message)
}

// IsTimeout reports whether err is a Wait that ran out of time (the job goes on).
func IsTimeout(err error) bool {
	var e *EngineError
	return errors.As(err, &e) && e.Code == CodeTimeout
}

// Job is a proof submitted to the engine. Wait for it, or Release it.
type Job struct{ id uint64 }

// ID is the engine's job id.
func (j *Job) ID() uint64 { return j.id }

// SubmitSealCommitPhase2 submits PoRep C2; Wait returns SealCommitPhase2's bytes.
func SubmitSealCommitPhase2(phase1Output []byte, sectorNum abi.SectorNumber, minerID abi.ActorID, priority Priority) (*Job, error) {
	prover, err := proverID(minerID)
	if err != nil {
		return nil, err
	}
	id, err := submitPoRepC2(phase1Output, uint64(sectorNum), prover, int32(priority))
	return jobOf(id, err)
}

// SubmitWinningPoStWithVanilla submits a Winning PoSt; Wait returns its 192 bytes.
func SubmitWinningPoStWithVanilla(proofType abi.RegisteredPoStProof, minerID abi.ActorID, randomness abi.PoStRandomness, proofs [][]byte, priority Priority) (*Job, error) {
	return submitPoStJob(true, proofType, minerID, randomness, proofs, priority)
}

// SubmitWindowPoStWithVanilla submits a Window PoSt of every partition; Wait
// returns 192 bytes per partition.
func SubmitWindowPoStWithVanilla(proofType abi.RegisteredPoStProof, minerID abi.ActorID, randomness abi.PoStRandomness, proofs [][]byte, priority Priority) (*Job, error) {
	return submitPoStJob(false, proofType, minerID, randomness, proofs, priority)
}

func submitPoStJob(winning bool, proofType abi.RegisteredPoStProof, minerID abi.ActorID, randomness abi.PoStRandomness, proofs [][]byte, priority Priority) (*Job, error) {
	registeredProof, prover, random, err := postInputs(proofType, minerID, randomness)
	if err != nil {
		return nil, err
	}
	id, err := submitPoSt(winning, registeredProof, random, prover, proofs, int32(priority))
	return jobOf(id, err)
}

// SubmitUpdateProofWithVanilla submits a SnapDeals update proof from one
// vanilla proof per partition (as SectorUpdate.GenerateUpdateProofWithVanilla);
// Wait returns the proof's bytes.
func SubmitUpdateProofWithVanilla(proofType abi.RegisteredUpdateProof, oldSealedCID, newSealedCID, unsealedCID cid.Cid, vanillaProofs [][]byte, priority Priority) (*Job, error) {
	return withUpdateInputs(proofType, oldSealedCID, newSealedCID, unsealedCID, func(updateProof int32, c *updateCommitments) (*Job, error) {
		return jobOf(submitSnapDeals(updateProof, vanillaProofs, c, int32(priority)))
	})
}

func jobOf(id uint64, err error) (*Job, error) {
	if err != nil {
		return nil, err
	}
	return &Job{id: id}, nil
}

// Wait returns the proof once the job is done (the job then ends), or an
// error: IsTimeout(err) when timeout passed first (the job goes on); a
// negative timeout waits without limit.
func (j *Job) Wait(timeout time.Duration) ([]byte, error) {
	ms := uint64(math.MaxUint64)
	if timeout >= 0 {
		ms = uint64(timeout.Milliseconds())
	}
	return waitJob(j.id, ms)
}

// Poll returns the job's state without waiting.
func (j *Job) Poll() (JobState, error) {
	state, err := pollJob(j.id)
	return JobState(state), err
}

// Cancel stops the job at its next partition boundary; Wait then fails with
// CodeCancelled.
func (j *Job) Cancel() error { return cancelJob(j.id) }

// Release forgets the job without waiting (cancelling it if it runs).
func (j *Job) Release() error { return releaseJob(j.id) }

// RegisteredProof is any registered proof type whose proving key the engine
// can hold: seal (PoRep C2), PoSt (Winning or Window) or update (SnapDeals).
type RegisteredProof interface {
	abi.RegisteredSealProof | abi.RegisteredPoStProof | abi.RegisteredUpdateProof
}

// PreloadParams loads the proving key of proofType into memory now (blocking
// while the file is read); it stays resident until EvictParams. Preloading
// the PoSt keys at start keeps the first Winning PoSt from paying the read.
func PreloadParams[P RegisteredProof](proofType P) error {
	kind, number, err := paramsOf(proofType)
	if err != nil {
		return err
	}
	return preloadParams(kind, number)
}

// EvictParams drops the proving key of proofType from memory once no running
// job uses it; CodeNotFound if it was not resident.
func EvictParams[P RegisteredProof](proofType P) error {
	kind, number, err := paramsOf(proofType)
	if err != nil {
		return err
	}
	return evictParams(kind, number)
}

// The cuzk_proof_kind of the C API, in its order.
const (
	paramsPoRepC2 int32 = iota
	paramsWinningPoSt
	paramsWindowPoSt
	paramsSnapDeals
)

func paramsOf[P RegisteredProof](proofType P) (kind, number int32, err error) {
	switch p := any(proofType).(type) {
	case abi.RegisteredSealProof:
		number, err = sealProofNumber(p)
		return paramsPoRepC2, number, err
	case abi.RegisteredPoStProof:
		number, err = postProofNumber(p)
		if p <= abi.RegisteredPoStProof_StackedDrgWinning64GiBV1 {
			return paramsWinningPoSt, number, err
		}
		return paramsWindowPoSt, number, err
	case abi.RegisteredUpdateProof:
		number, err = updateProofNumber(p)
		return paramsSnapDeals, number, err
	}
	panic("unreachable: RegisteredProof has three types")
}

// EngineStatus is the engine's status report as JSON (docs/CONFIG.md).
func EngineStatus() (json.RawMessage, error) {
	return engineStatusJSON()
}

// EngineConfig is the configuration in force, as JSON (docs/CONFIG.md).
func EngineConfig() (json.RawMessage, error) {
	return engineConfigJSON()
}

// EngineSettings are the engine's settings (docs/CONFIG.md has each one's
// meaning and default). In Configure, nil fields keep the value in force.
type EngineSettings struct {
	ParamCache        *string `json:"param_cache,omitempty"`
	HostMemoryBudget  *uint64 `json:"host_memory_budget,omitempty"`
	SynthesisThreads  *uint   `json:"synthesis_threads,omitempty"`
	ProverWorkers     *uint   `json:"prover_workers,omitempty"`
	ReadyQueueDepth   *uint   `json:"ready_queue_depth,omitempty"`
	PostMemoryReserve *uint64 `json:"post_memory_reserve,omitempty"`
	// GPUs: nil keeps the selection in Configure; Settings always sets it.
	GPUs *GPUSelection `json:"gpus,omitempty"`
	// GPUMemoryBudget: bytes of each GPU cuzk may hold. In Settings, nil
	// means no limit; lift a limit with ConfigureEngine({"gpu_memory_budget": null}).
	GPUMemoryBudget *uint64 `json:"gpu_memory_budget,omitempty"`
	// MatricesFiles: recorded matrices kept in files beside the keys.
	MatricesFiles *bool `json:"matrices_files,omitempty"`
	// GPUFallback: "cpu" (a failed GPU step is redone on the CPU) or "error".
	GPUFallback *string `json:"gpu_fallback,omitempty"`
}

// GPUSelection is the gpus setting: every usable GPU (All), or the listed
// indices among the usable devices (none listed: the CPU only).
type GPUSelection struct {
	All     bool
	Indices []uint
}

// MarshalJSON writes the engine's form: null for all GPUs, else the list.
func (g GPUSelection) MarshalJSON() ([]byte, error) {
	if g.All {
		return []byte("null"), nil
	}
	if g.Indices == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(g.Indices)
}

// UnmarshalJSON reads the engine's form (null: all GPUs; a list).
func (g *GPUSelection) UnmarshalJSON(raw []byte) error {
	if string(raw) == "null" {
		*g = GPUSelection{All: true}
		return nil
	}
	var indices []uint
	if err := json.Unmarshal(raw, &indices); err != nil {
		return fmt.Errorf("gpus: %w", err)
	}
	*g = GPUSelection{Indices: indices}
	return nil
}

// Settings returns the settings in force, every field set.
func Settings() (EngineSettings, error) {
	var s EngineSettings
	raw, err := EngineConfig()
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return s, fmt.Errorf("the engine's configuration %s: %w", raw, err)
	}
	if s.GPUs == nil {
		// encoding/json leaves a pointer nil for null: every usable GPU.
		s.GPUs = &GPUSelection{All: true}
	}
	return s, nil
}

// Configure replaces the settings whose fields are set; a bad value changes
// nothing and is an *EngineError with CodeInvalidArgument.
func Configure(s EngineSettings) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return ConfigureEngine(raw)
}

// ConfigureEngine replaces the settings present in settings (a JSON object
// of docs/CONFIG.md's fields); a bad one changes nothing and is an error.
func ConfigureEngine(settings json.RawMessage) error {
	return engineConfigSet(settings)
}
