//! Which of this crate's cargo features a plan needs to run (see the crate docs' Features).
//!
//! The compiler reads it to write a generated runner's dependency on this crate (only those
//! features, the defaults off); [`Plan::index`], which every run starts with, refuses a plan
//! that needs a feature this build lacks, so such a plan fails before its first node rather
//! than at its first jq expression.

use super::{Plan, PlanError, StateModel};

/// A feature of this crate and which plans need it, read from the plan's typed semantics
/// (never its dialect's name).
struct Needed {
    feature: &'static str,
    needs: fn(&Plan) -> bool,
    what: &'static str,
}

/// Every feature a plan may need, in a fixed order.
const NEEDED: &[Needed] = &[Needed {
    feature: "awp",
    needs: Plan::evaluates_jq,
    what: "jq expressions (an AWP workflow)",
}];

/// Whether this build has `feature`.
fn built(feature: &str) -> bool {
    feature == "awp" && cfg!(feature = "awp")
}

impl Plan {
    /// Whether a run of this plan evaluates jq: a workflow state
    /// ([`StateModel::Workflow`]) is what AWP's jq expressions read, and only they are jq.
    /// (A jq evaluation may meet a time limit, which no replay may decide again: the Restate
    /// workflow journals such a plan's steps.)
    pub fn evaluates_jq(&self) -> bool {
        matches!(self.semantics.state, StateModel::Workflow { .. })
    }

    /// The features of `agc-runtime` this plan needs to run, in a fixed order: `["awp"]` for
    /// an AWP plan (a workflow state, read by jq expressions), none for AGS, agh and Agent
    /// Graph plans (their expressions and fact checks are in the core; `agent-graph` is
    /// evaluation and routing, which no run calls).
    pub fn runtime_features(&self) -> Vec<&'static str> {
        self.needed().map(|n| n.feature).collect()
    }

    fn needed(&self) -> impl Iterator<Item = &'static Needed> + '_ {
        NEEDED.iter().filter(|n| (n.needs)(self))
    }

    /// Fails when this plan needs a feature this build of the crate lacks.
    pub(super) fn check_features(&self) -> Result<(), PlanError> {
        self.check_features_against(built)
    }

    fn check_features_against(&self, built: fn(&str) -> bool) -> Result<(), PlanError> {
        match self.needed().find(|n| !built(n.feature)) {
            Some(n) => Err(PlanError(format!(
                "this plan has {}: agc-runtime was built without its feature `{}` (add it to the dependency's `features`)",
                n.what, n.feature
            ))),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Plan, StateModel};

    fn plan(dialect: &str) -> Plan {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/golden/plans/changelog-release.agraph.yaml.plan.json"
        );
        let mut plan = Plan::from_json(&std::fs::read_to_string(path).expect("golden plan"))
            .expect("an agc plan");
        plan.source.dialect = dialect.to_string();
        plan.semantics.state = match dialect {
            "awp" => StateModel::Workflow {
                reducers: Default::default(),
            },
            "agent-graph" => StateModel::Facts,
            _ => StateModel::None,
        };
        plan
    }

    #[test]
    fn only_awp_plans_need_a_feature() {
        for dialect in ["ags", "agh", "agent-graph"] {
            assert!(plan(dialect).runtime_features().is_empty(), "{dialect}");
        }
        assert_eq!(plan("awp").runtime_features(), ["awp"]);
        assert_eq!(super::built("awp"), cfg!(feature = "awp"));
    }

    #[test]
    fn a_plan_whose_feature_is_missing_does_not_start() {
        let err = plan("awp").check_features_against(|_| false).unwrap_err();
        assert_eq!(
            err.0,
            "this plan has jq expressions (an AWP workflow): agc-runtime was built without its feature `awp` (add it to the dependency's `features`)"
        );
        assert!(plan("awp").check_features_against(|_| true).is_ok());
        assert!(plan("ags").check_features_against(|_| false).is_ok());
        assert_eq!(plan("awp").index().is_ok(), cfg!(feature = "awp"));
    }
}
