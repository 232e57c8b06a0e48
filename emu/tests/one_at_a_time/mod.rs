//! The check shared by the tests of the scheduler's runs (a stretch of
//! `PACR` or `UNPACR` words executed together): one program run whole, and
//! its steps run one per `Machine::run`, must end alike.
#![allow(dead_code)]

use tensix_emu::{FaultKind, Limits, Machine, ThreadProgram};

/// How a program ended, the same both ways.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Completed,
    OutOfSteps,
    Faulted(FaultKind),
}

/// Run `program` on `together` under a budget of `budget` steps, and its
/// steps one per `Machine::run` on `alone` with the budget counted across
/// them; assert that both end alike: every step taken (and as many datums
/// read), or the same `ResourceLimit`, or the same fault (kind and rule)
/// at the same program entry of the same thread. `case` names the case in a failure. The
/// callers compare the machines.
pub fn run_both_ways(
    together: &mut Machine,
    alone: &mut Machine,
    program: &ThreadProgram,
    budget: u64,
    case: &str,
) -> Ending {
    let len = program.steps.len() as u64;
    let whole = together.run(std::slice::from_ref(program), Limits::steps(budget));
    let mut one_by_one = Ok(());
    let mut datums = 0;
    for (i, step) in program.steps.iter().enumerate() {
        if i as u64 == budget {
            one_by_one = Err((FaultKind::ResourceLimit, None));
            break;
        }
        let single = ThreadProgram {
            thread: program.thread,
            steps: vec![*step],
        };
        match alone.run(&[single], Limits::default()) {
            Ok(stats) => datums += stats.datums,
            Err(f) => {
                let f = f.into_info();
                one_by_one = Err((f.kind, Some((f.rule, i))));
                break;
            }
        }
    }
    if one_by_one.is_ok() && len == budget {
        one_by_one = Err((FaultKind::ResourceLimit, None));
    }
    match (&whole, &one_by_one) {
        (Ok(stats), Ok(())) => {
            assert_eq!(stats.instructions, len, "{case}");
            assert_eq!(stats.steps, len, "{case}");
            assert_eq!(stats.datums, datums, "{case}: datums read");
            Ending::Completed
        }
        (Err(f), Err((FaultKind::ResourceLimit, None))) => {
            assert_eq!(f.kind, FaultKind::ResourceLimit, "{case}: {f}");
            Ending::OutOfSteps
        }
        (Err(f), Err((kind, Some((rule, i))))) => {
            assert_eq!((f.kind, &f.rule), (*kind, rule), "{case}");
            assert_eq!(f.instruction_index, Some(*i), "{case}");
            assert_eq!(f.thread, Some(program.thread as u8), "{case}");
            Ending::Faulted(f.kind)
        }
        _ => panic!("{case}: together {whole:?}, one at a time {one_by_one:?}"),
    }
}
