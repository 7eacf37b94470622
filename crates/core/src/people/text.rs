//! Instruction screens for lay participants (plain English, no jargon). The edge shows
//! [`instructions`] before a task's first block, [`practice_note`] before a practice block and
//! [`main_note`] before a main block; key names are the edge's to add.

use super::{NbackKind, StudyTask};
use crate::task::TaskId;

/// What the task asks, in a few sentences.
pub fn instructions(task: StudyTask) -> String {
    let s = match task {
        StudyTask::Worm(TaskId::Sfr) => {
            "Squares on a grid will turn red one after another. Remember which squares turned red. When the grid goes blank, click all the squares that turned red, in any order, then press Done."
        }
        StudyTask::Worm(t) if t.is_cd() => {
            "You will see a few coloured bars for a very short moment. After a short pause they come back. Decide whether one bar has changed (its colour, direction, size or gap) or whether everything is the same."
        }
        StudyTask::Worm(TaskId::Vir) => {
            "You will see a series of patterns of red squares, one at a time. Then two patterns appear side by side: one of them was in the series. Choose the one you saw before."
        }
        StudyTask::Worm(TaskId::Vsr) => {
            "You will see a series of patterns of green squares, one at a time. Then all of them appear together in a grid. Click them in the order in which you saw them: first the first one, then the second, and so on."
        }
        StudyTask::Worm(TaskId::VsRec) => {
            "You will see a series of patterns of green squares, one at a time. Then, for each pattern in turn, two patterns appear side by side. Choose the one that was in the series at that place: first for the first pattern, then for the second, and so on."
        }
        StudyTask::Worm(TaskId::Cs) => {
            "Remember what you are shown (a ball's path or a pattern). In between, answer quick questions about other pictures (red or blue? symmetric or not?). At the end, pick what you had to remember, in the order it was shown."
        }
        StudyTask::Worm(TaskId::Sc) => {
            "Squares on a grid light up one after another. Picture them all together. At the end, decide whether the whole picture would be symmetric (the left half a mirror image of the right half)."
        }
        StudyTask::Worm(TaskId::Si) => {
            "You will see parts of a line drawing, one after another. Put them together in your mind. Then a complete drawing appears: decide whether it is the same as the drawing made of the parts."
        }
        StudyTask::Worm(TaskId::Smu) => {
            "Each square has a red dot in it. Remember where. Arrows then tell you to move a dot in your mind, one square at a time. At the end, one square is highlighted: click where its dot is now."
        }
        StudyTask::Worm(TaskId::Sts) => {
            "A red dot appears in one of four places. A sign tells you which question to answer: top or bottom, or left or right. Answer for each dot; when the sign changes, switch to the other question."
        }
        StudyTask::Worm(TaskId::Lsr) => {
            "You will see a series of words, one at a time. Then all of them appear together in a grid. Click them in the order in which you saw them: first the first word, then the second, and so on."
        }
        StudyTask::Worm(_) => "Follow the pictures and answer when asked.",
        StudyTask::Nback(NbackKind::Verbal) => {
            "Letters appear one at a time. Press “match” when the letter is the same as the one shown N letters before (N is given before each block). Otherwise do nothing."
        }
        StudyTask::Pi => {
            "Words appear one at a time, each with its category, like “fruit: pear” or “job: chef”. The same few categories come back again and again with new words. Keep track of the most recent word of each category and forget the older ones. At the end, type the last word you saw for each category (capital letters do not matter; a misspelt word counts as wrong)."
        }
        StudyTask::Nback(NbackKind::Spatial) => {
            "A square lights up in a 3×3 grid, one at a time. Press “match” when the same square lit up N steps before (N is given before each block). Otherwise do nothing."
        }
    };
    s.to_string()
}

/// Before a practice block.
pub fn practice_note(trials: usize) -> String {
    format!(
        "First a short practice ({trials} {}). You will see after each one whether you were right.",
        if trials == 1 { "round" } else { "rounds" }
    )
}

/// Before a main block (N-back: the level).
pub fn main_note(n_back: Option<u8>) -> String {
    match n_back {
        Some(1) => "Now the real task. Press “match” when the item is the same as the one just before it.".into(),
        Some(n) => format!("Now the real task. Press “match” when the item is the same as the one {n} steps before."),
        None => {
            "Now the real task. There is no feedback from here on. Take your time between rounds if you need to.".into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_has_instructions() {
        for t in StudyTask::all() {
            let s = instructions(t);
            assert!(s.len() > 60, "{t}");
            assert!(!s.contains("Follow the pictures"), "{t} has only the fallback");
        }
        assert!(practice_note(3).contains("3 rounds"));
        assert!(main_note(Some(2)).contains("2 steps"));
    }
}
