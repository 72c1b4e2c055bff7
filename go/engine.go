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

// EngineStatus is the engine's status report as JSON (docs/CONFIG.md).
func EngineStatus() (json.RawMessage, error) {
	return engineStatusJSON()
}

// EngineConfig is the configuration in force, as JSON (docs/CONFIG.md).
func EngineConfig() (json.RawMessage, error) {
	return engineConfigJSON()
}

// ConfigureEngine replaces the settings present in settings (a JSON object
// of docs/CONFIG.md's fields); a bad one changes nothing and is an error.
func ConfigureEngine(settings json.RawMessage) error {
	return engineConfigSet(settings)
}
