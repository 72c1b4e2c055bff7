//! A synthetic circuit of any size, for the bit-identity test and benchmarks:
//! a chain `(x_i + k) * x_i = x_{i+1}` with one public input (the last link), so
//! the A and B queries touch every aux variable and C is a single term.

use bellperson::{Circuit, ConstraintSystem, SynthesisError};
use blstrs::Scalar as Fr;

#[derive(Clone, Debug)]
pub struct MulChain {
    pub start: Fr,
    pub links: usize,
}

impl MulChain {
    /// The public input: the chain's last value.
    pub fn output(&self) -> Fr {
        (0..self.links).fold(self.start, |x, i| (x + Fr::from(i as u64)) * x)
    }
}

impl Circuit<Fr> for MulChain {
    fn synthesize<CS: ConstraintSystem<Fr>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let mut value = self.start;
        let mut var = cs.alloc(|| "x0", || Ok(value))?;
        for i in 0..self.links {
            let k = Fr::from(i as u64);
            let next = (value + k) * value;
            let next_var = if i + 1 == self.links {
                cs.alloc_input(|| "out", || Ok(next))?
            } else {
                cs.alloc(|| "x", || Ok(next))?
            };
            cs.enforce(|| "link", |lc| lc + var + (k, CS::one()), |lc| lc + var, |lc| lc + next_var);
            value = next;
            var = next_var;
        }
        if self.links == 0 {
            let out = cs.alloc_input(|| "out", || Ok(value))?;
            cs.enforce(|| "eq", |lc| lc + var, |lc| lc + CS::one(), |lc| lc + out);
        }
        Ok(())
    }
}
