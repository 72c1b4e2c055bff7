package cuzk

import (
	"fmt"

	"github.com/filecoin-project/go-address"
	commcid "github.com/filecoin-project/go-fil-commcid"
	"github.com/filecoin-project/go-state-types/abi"
	"github.com/ipfs/go-cid"
)

// The C enums number their variants as go-state-types does, so a registered
// proof goes to C as its number once it is known: a value outside the enum is
// refused here rather than wrapped into a valid int32.

func sealProofNumber(p abi.RegisteredSealProof) (int32, error) {
	return enumNumber("abi.RegisteredSealProof", p,
		abi.RegisteredSealProof_StackedDrg2KiBV1, abi.RegisteredSealProof_StackedDrg64GiBV1_2_Feat_NiPoRep)
}

func postProofNumber(p abi.RegisteredPoStProof) (int32, error) {
	return enumNumber("abi.RegisteredPoStProof", p,
		abi.RegisteredPoStProof_StackedDrgWinning2KiBV1, abi.RegisteredPoStProof_StackedDrgWindow64GiBV1_1)
}

func updateProofNumber(p abi.RegisteredUpdateProof) (int32, error) {
	return enumNumber("abi.RegisteredUpdateProof", p,
		abi.RegisteredUpdateProof_StackedDrg2KiBV1, abi.RegisteredUpdateProof_StackedDrg64GiBV1)
}

func enumNumber[T ~int64](name string, value, first, last T) (int32, error) {
	if value < first || value > last {
		return 0, fmt.Errorf("no mapping to a C value for %s %d", name, value)
	}
	return int32(value), nil
}

// proverID is the miner's ID address payload, zero-padded, as the proofs take it.
func proverID(miner abi.ActorID) (*[32]byte, error) {
	addr, err := address.NewIDAddress(uint64(miner))
	if err != nil {
		return nil, fmt.Errorf("prover id of miner %d: %w", miner, err)
	}
	return bytes32("prover id", addr.Payload())
}

// bytes32 zero-pads b (randomness, tickets) to the 32 bytes C reads.
func bytes32(name string, b []byte) (*[32]byte, error) {
	if len(b) > 32 {
		return nil, fmt.Errorf("%s has %d bytes, at most 32 expected", name, len(b))
	}
	var out [32]byte
	copy(out[:], b)
	return &out, nil
}

func commR(sealed cid.Cid) (*[32]byte, error) {
	return commitment("sealed CID (CommR)", sealed, commcid.CIDToReplicaCommitmentV1)
}

func commD(unsealed cid.Cid) (*[32]byte, error) {
	return commitment("unsealed CID (CommD)", unsealed, commcid.CIDToDataCommitmentV1)
}

func commP(piece cid.Cid) (*[32]byte, error) {
	return commitment("piece CID (CommP)", piece, commcid.CIDToPieceCommitmentV1)
}

func commitment(name string, c cid.Cid, decode func(cid.Cid) ([]byte, error)) (*[32]byte, error) {
	raw, err := decode(c)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return bytes32(name, raw)
}

// replicaCIDs are a replica's sealed (CommR) and unsealed (CommD) CIDs from
// the commitments of the call that made it, or that call's error.
func replicaCIDs(commR, commD [32]byte, err error) (sealedCID, unsealedCID cid.Cid, _ error) {
	if err != nil {
		return cid.Undef, cid.Undef, err
	}
	if sealedCID, err = commcid.ReplicaCommitmentV1ToCID(commR[:]); err != nil {
		return cid.Undef, cid.Undef, err
	}
	unsealedCID, err = commcid.DataCommitmentV1ToCID(commD[:])
	return sealedCID, unsealedCID, err
}

func publicPieces(pieces []abi.PieceInfo) ([]publicPiece, error) {
	out := make([]publicPiece, len(pieces))
	for i, p := range pieces {
		c, err := commP(p.PieceCID)
		if err != nil {
			return nil, fmt.Errorf("piece %d: %w", i, err)
		}
		out[i] = publicPiece{unpaddedSize: uint64(p.Size.Unpadded()), commP: *c}
	}
	return out, nil
}
