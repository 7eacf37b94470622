//! The edits a person makes to the training configuration ([`Field`], [`Edit`]): the Networks page's
//! form and the CLI's `wmlab train` flags both turn what was typed into the same edits, refused alike.

use crate::task::{Quirks, TaskId};

use super::choices::SettingsError;
use super::config::TrainConfig;

/// A number field of the settings form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Optimisation steps ([`TrainConfig::steps`]).
    Steps,
    /// Trials per task id per step ([`TrainConfig::per_task`]).
    PerTask,
    /// Adam's learning rate ([`TrainConfig::lr`]).
    Lr,
    /// Master seed of the trial streams and the initialisation ([`TrainConfig::seed`]).
    Seed,
    /// Steps between validation checks ([`TrainConfig::val_every`]).
    ValEvery,
    /// Validation trials per task id per check ([`TrainConfig::val_per_task`]).
    ValPerTask,
}

impl Field {
    /// Every field, in the order of the settings form.
    pub const ALL: [Field; 6] =
        [Field::Steps, Field::PerTask, Field::Lr, Field::Seed, Field::ValEvery, Field::ValPerTask];

    /// The form element's id.
    pub fn id(self) -> &'static str {
        match self {
            Field::Steps => "nn-steps",
            Field::PerTask => "nn-per-task",
            Field::Lr => "nn-lr",
            Field::Seed => "nn-seed",
            Field::ValEvery => "nn-val-every",
            Field::ValPerTask => "nn-val-n",
        }
    }

    /// The field's label on the form (also names it in [`SettingsError::NotWhole`]).
    pub fn label(self) -> &'static str {
        match self {
            Field::Steps => "Steps",
            Field::PerTask => "Trials per task per step",
            Field::Lr => "Learning rate",
            Field::Seed => "Seed",
            Field::ValEvery => "Validate every (steps)",
            Field::ValPerTask => "Validation trials per task",
        }
    }

    /// The field's value in `c`, as the form shows it.
    pub fn show(self, c: &TrainConfig) -> String {
        match self {
            Field::Steps => c.steps.to_string(),
            Field::PerTask => c.per_task.to_string(),
            Field::Lr => c.lr.to_string(),
            Field::Seed => c.seed.to_string(),
            Field::ValEvery => c.val_every.to_string(),
            Field::ValPerTask => c.val_per_task.to_string(),
        }
    }

    /// What a person typed, as an edit, or why it is not one. The trial counts and the validation
    /// interval must be at least 1 (0 trials per step trains nothing; the worker would refuse 0).
    pub fn parse(self, text: &str) -> Result<Edit, SettingsError> {
        let t = text.trim();
        let whole = |least: u64| {
            t.parse::<u64>().ok().filter(|n| *n >= least).ok_or_else(|| SettingsError::NotWhole {
                field: self.label(),
                text: t.to_string(),
                above_zero: least > 0,
            })
        };
        Ok(match self {
            Field::Steps => Edit::Steps(whole(0)? as usize),
            Field::PerTask => Edit::PerTask(whole(1)? as usize),
            Field::Seed => Edit::Seed(whole(0)?),
            Field::ValEvery => Edit::ValEvery(whole(1)? as usize),
            Field::ValPerTask => Edit::ValPerTask(whole(1)? as usize),
            Field::Lr => Edit::Lr(
                t.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .ok_or_else(|| SettingsError::Lr(t.to_string()))?,
            ),
        })
    }
}

/// One change a person makes to the settings.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// Set [`TrainConfig::steps`].
    Steps(usize),
    /// Set [`TrainConfig::per_task`] (at least 1).
    PerTask(usize),
    /// Set [`TrainConfig::lr`] (finite, above 0).
    Lr(f64),
    /// Set [`TrainConfig::seed`].
    Seed(u64),
    /// Set [`TrainConfig::val_every`] (at least 1).
    ValEvery(usize),
    /// Set [`TrainConfig::val_per_task`] (at least 1).
    ValPerTask(usize),
    /// Set [`TrainConfig::tasks`] (`None`: all 14).
    Tasks(Option<Vec<TaskId>>),
    /// `None` when every switch is off.
    Quirks(Option<Quirks>),
    /// Task parameters (`KEY=VALUE`), `None` for the paper's.
    TaskSettings(Option<Vec<(String, String)>>),
    /// A frozen identity task embedding (the paper's "static" models) instead of a learned one.
    StaticEmbedding(bool),
}

impl Edit {
    /// The task-id list a person typed (see [`TrainConfig::parse_tasks`]).
    pub fn tasks(text: &str) -> Result<Edit, SettingsError> {
        TrainConfig::parse_tasks(text).map(Edit::Tasks).map_err(|e| SettingsError::Tasks(Box::new(e)))
    }

    /// Task parameters as a person types them: `KEY=VALUE` entries separated by `;` (a value may be a
    /// comma list: `noise_mask=true; set_sizes=2,4`); empty = the paper's. Whether each key and value
    /// fits the trained tasks is checked with the whole config ([`TrainConfig::check_task_settings`]).
    pub fn task_settings(text: &str) -> Result<Edit, SettingsError> {
        let out = crate::parse_settings(text).map_err(SettingsError::TaskSettings)?;
        Ok(Edit::TaskSettings((!out.is_empty()).then_some(out)))
    }

    /// Switch the reference-code quirk `name` on or off in `c`'s quirks.
    pub fn quirk(c: &TrainConfig, name: &str, on: bool) -> Result<Edit, SettingsError> {
        let mut q = c.quirks.unwrap_or_default();
        q.set(name, on)?;
        Ok(Edit::Quirks((!q.is_none()).then_some(q)))
    }

    /// Make this change to `c`.
    pub fn apply(&self, c: &mut TrainConfig) {
        match self {
            Edit::Steps(n) => c.steps = *n,
            Edit::PerTask(n) => c.per_task = *n,
            Edit::Lr(x) => c.lr = *x,
            Edit::Seed(s) => c.seed = *s,
            Edit::ValEvery(n) => c.val_every = *n,
            Edit::ValPerTask(n) => c.val_per_task = *n,
            Edit::Tasks(t) => c.tasks = t.clone(),
            Edit::Quirks(q) => c.quirks = *q,
            Edit::TaskSettings(s) => c.task_settings = s.clone(),
            Edit::StaticEmbedding(on) => c.model.frozen_task_embedding = *on,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::networks::choices::tests::settings;

    #[test]
    fn form_fields_read_what_people_type_and_say_why_not() {
        let c = settings(96, 300);
        assert_eq!(Field::ALL.map(|f| f.show(&c)), ["300", "2", "0.001", "86", "50", "10"].map(String::from));
        assert_eq!(Field::Steps.parse(" 2 "), Ok(Edit::Steps(2)));
        assert_eq!(Field::Lr.parse("3e-4"), Ok(Edit::Lr(3e-4)));
        assert_eq!(Field::Lr.parse("0").unwrap_err().to_string(), "Learning rate: \"0\" is not a positive number.");
        assert_eq!(
            Field::PerTask.parse("0").unwrap_err().to_string(),
            "Trials per task per step: \"0\" is not a whole number above 0."
        );
        assert!(Field::Seed.parse("1.5").unwrap_err().to_string().contains("not a whole number"));
        assert!(Field::Lr.parse("NaN").is_err() && Field::Lr.parse("inf").is_err());
        // Every field's edit lands on its own field.
        let mut d = c.clone();
        for (f, text) in Field::ALL.into_iter().zip(["7", "3", "0.5", "9", "4", "6"]) {
            f.parse(text).unwrap().apply(&mut d);
        }
        assert_eq!(Field::ALL.map(|f| f.show(&d)), ["7", "3", "0.5", "9", "4", "6"].map(String::from));
        assert_eq!(d.model, c.model);
    }

    #[test]
    fn task_lists_and_quirks_edit_the_settings() {
        let mut c = settings(96, 300);
        Edit::tasks("vsr, CD-Color,VSR").unwrap().apply(&mut c);
        assert_eq!(c.tasks, Some(vec![TaskId::Vsr, TaskId::CdColor]));
        assert_eq!(c.tasks_text(), "VSR,CD-Color");
        assert_eq!(c.task_ids(), vec![TaskId::Vsr, TaskId::CdColor], "in the model's order");
        assert_eq!(c.trials_per_step(), 4);
        let all: Vec<&str> = TaskId::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(Edit::tasks(&all.join(",")), Ok(Edit::Tasks(None)), "all 14 named is all");
        assert_eq!(Edit::tasks(""), Ok(Edit::Tasks(None)));
        assert_eq!(Edit::tasks("VSR,all"), Ok(Edit::Tasks(None)));
        assert!(Edit::tasks("VSR,XYZ").unwrap_err().to_string().starts_with("Task ids: \"XYZ\" is not a task id"));
        let on = Edit::quirk(&c, "cd-size", true).unwrap();
        on.apply(&mut c);
        assert_eq!(c.quirks.unwrap().names(), ["cd-size"]);
        Edit::quirk(&c, "cd-size", false).unwrap().apply(&mut c);
        assert_eq!(c.quirks, None, "all off is none, the paper's tasks");
        assert!(Edit::quirk(&c, "bogus", true).is_err());
        // Task parameters: `;`-separated KEY=VALUE, values may be comma lists; shown back the same way.
        Edit::task_settings(" noise_mask=true; set_sizes=2,4 ;").unwrap().apply(&mut c);
        let want = vec![("noise_mask".to_string(), "true".to_string()), ("set_sizes".to_string(), "2,4".to_string())];
        assert_eq!(c.task_settings, Some(want));
        assert_eq!(c.task_settings_text(), "noise_mask=true; set_sizes=2,4");
        assert_eq!(Edit::task_settings(""), Ok(Edit::TaskSettings(None)));
        let e = Edit::task_settings("noise_mask").unwrap_err().to_string();
        assert!(e.starts_with("Task parameters: \"noise_mask\" is not KEY=VALUE"), "{e}");
    }
}
