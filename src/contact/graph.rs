//! The contact graph (Bender-Schmitt section 3.2, Guendelman's shock propagation): bodies are
//! nodes, touching contacts are edges, static and kinematic bodies are the roots (level 0); a
//! body's level is its distance to a root. Bodies not connected to a root keep `u32::MAX`.

use super::detection::Contact;
use super::impulse::WORLD;
use crate::body::MotionState;

/// Levels of the bodies in `involved` (slots), written into `level` (indexed by slot), and the
/// contacts grouped by level in `order` (level of a contact = larger level of its two bodies;
/// contacts without a level are left out). Returns the highest level.
pub(crate) fn levels(
    contacts: &[Contact],
    states: &[MotionState],
    involved: &[u32],
    tol: f64,
    level: &mut [u32],
    order: &mut Vec<u32>,
) -> u32 {
    let lv = |level: &[u32], i: u32| level_of(states, level, i);
    for &s in involved {
        level[s as usize] = u32::MAX;
    }
    let touching = |c: &Contact| c.pn > 0.0 || c.sep < tol;
    let mut current = 0;
    loop {
        let mut grew = false;
        for c in contacts.iter().filter(|c| touching(c)) {
            let (la, lb) = (lv(level, c.a), lv(level, c.b));
            if la == current && lb == u32::MAX {
                level[c.b as usize] = current + 1;
                grew = true;
            } else if lb == current && la == u32::MAX {
                level[c.a as usize] = current + 1;
                grew = true;
            }
        }
        if !grew {
            break;
        }
        current += 1;
    }
    order.clear();
    for l in 1..=current {
        for (k, c) in contacts.iter().enumerate() {
            if touching(c) && lv(level, c.a).max(lv(level, c.b)) == l {
                order.push(k as u32);
            }
        }
    }
    current
}

/// The level of body slot `i` in `level` as [`levels`] wrote it: 0 for the static world and
/// bodies that are not dynamic.
pub(crate) fn level_of(states: &[MotionState], level: &[u32], i: u32) -> u32 {
    if i == WORLD || !states[i as usize].dynamic {
        0
    } else {
        level[i as usize]
    }
}
