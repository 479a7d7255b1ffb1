//! Work shared by the processes of one account, kept in the quota's Redis
//! beside the quota (same connection, same bounds, same hash tag): several
//! workers agree on one plan of items, each item is done by exactly one of
//! them (a claim is a lease, renewed while the item runs, so a worker killed
//! mid-item holds it only until the lease ends), and what each item produced
//! is recorded for later runs. The analytics exporter splits a report's
//! chunks this way.

use crate::error::RedisError;
use crate::quota::{millis, LuaScript, RedisQuota};
use std::fmt;
use std::time::Duration;

/// Redis could not be used for shared work (unreachable, too slow, or an
/// answer out of bounds or of the wrong shape): [`SharedWorkError::redis`] says how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedWorkError {
    redis: RedisError,
}

impl SharedWorkError {
    /// What Redis did.
    pub fn redis(&self) -> &RedisError {
        &self.redis
    }
}

impl fmt::Display for SharedWorkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "shared work: {}", self.redis)
    }
}

impl std::error::Error for SharedWorkError {}

impl From<RedisError> for SharedWorkError {
    fn from(redis: RedisError) -> Self {
        Self { redis }
    }
}

/// One job's shared state (a plan, claims, records), named by the caller:
/// the exporter names a job by report and period.
#[derive(Clone)]
pub struct SharedWork {
    store: RedisQuota,
    /// Every key of the job starts with it.
    prefix: String,
    plan: String,
    records: String,
}

/// The plan the workers agreed on: its text (the caller's), and the id that
/// keeps its claims and finished items apart from those of other plans.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgreedPlan {
    /// The plan's id.
    pub id: String,
    /// The plan as the worker that stored it wrote it.
    pub text: String,
}

impl fmt::Debug for SharedWork {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedWork")
            .field("plan", &self.plan)
            .finish_non_exhaustive()
    }
}

/// What [`SharedWork::claim`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum WorkClaim {
    /// The item is this worker's until its lease ends; renew it while the item runs.
    Claimed(WorkToken),
    /// Another worker holds it.
    Taken,
    /// A worker finished it in this plan.
    Done,
}

/// Proof of a claim (a random token only its holder knows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkToken {
    plan: AgreedPlan,
    item: usize,
    token: String,
}

/// The longest a plan and its records of finished items live without a
/// finished item: a plan abandoned halfway is planned anew after a week.
const PLAN_LIFETIME: Duration = Duration::from_secs(7 * 24 * 3600);

impl SharedWork {
    /// Work split between the processes of `store`'s account (the
    /// exporter's chunks): a shared plan, claims and records, under `job`
    /// in that Redis.
    pub fn new(store: RedisQuota, job: &str) -> Self {
        // The job's name is the caller's: escaped so it cannot reach another job's keys.
        let job = job.replace(|c: char| !c.is_ascii_alphanumeric() && !"-_.=".contains(c), "_");
        let prefix = format!("{}:work:{job}", store.key_prefix());
        Self {
            store,
            plan: format!("{prefix}:plan"),
            records: format!("{prefix}:records"),
            prefix,
        }
    }

    /// The set of a plan's finished items: it outlives the plan (for a
    /// week), so a worker still holding the plan finds them finished.
    fn done(&self, plan: &AgreedPlan) -> String {
        format!("{}:done:{}", self.prefix, plan.id)
    }

    fn claim_key(&self, plan: &AgreedPlan, item: usize) -> String {
        format!("{}:claim:{}:{item}", self.prefix, plan.id)
    }

    /// The plan the workers share: `mine` if no plan is in progress (then it
    /// is stored), else the one a worker stored first. A plan ends when its
    /// last item is finished.
    pub async fn agree_plan(&self, mine: &str) -> Result<AgreedPlan, SharedWorkError> {
        let id = format!("{:016x}", fastrand::u64(..));
        let args = [format!("{id}\n{mine}"), millis(PLAN_LIFETIME).to_string()];
        let stored: String = self.store.run(&AGREE, &[self.plan.as_str()], &args, None).await?;
        let (id, text) = stored.split_once('\n').ok_or_else(|| RedisError::UnexpectedAnswer {
            script: "plan",
            answer: "a plan without its id".to_owned(),
        })?;
        Ok(AgreedPlan {
            id: id.to_owned(),
            text: text.to_owned(),
        })
    }

    /// The records every finished item left, in all plans so far (a later
    /// plan is made from them): `(name, value)` pairs.
    /// Read a page at a time (`HSCAN`), each reply well inside the client's
    /// bound on reply values, so that any number of records can be read; in
    /// name order.
    pub async fn records(&self) -> Result<Vec<(String, String)>, SharedWorkError> {
        let mut records = std::collections::BTreeMap::new();
        let mut cursor = "0".to_owned();
        for _ in 0..MAX_RECORD_PAGES {
            let args = std::slice::from_ref(&cursor);
            let page: Vec<String> = self
                .store
                .run(&RECORDS_PAGE, &[self.records.as_str()], args, None)
                .await?;
            let mut values = page.into_iter();
            cursor = values.next().unwrap_or_else(|| "0".to_owned());
            // HSCAN may return a record twice: the map keeps one.
            while let (Some(name), Some(value)) = (values.next(), values.next()) {
                records.insert(name, value);
            }
            if cursor == "0" {
                return Ok(records.into_iter().collect());
            }
        }
        Err(RedisError::UnexpectedAnswer {
            script: "records",
            answer: format!("no last page within {MAX_RECORD_PAGES} pages"),
        }
        .into())
    }

    /// Claims item `item` of the plan for `lease`, unless another worker holds it or finished it.
    pub async fn claim(&self, plan: &AgreedPlan, item: usize, lease: Duration) -> Result<WorkClaim, SharedWorkError> {
        let token = format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..));
        let done = self.done(plan);
        let claim = self.claim_key(plan, item);
        let args = [item.to_string(), token.clone(), millis(lease).to_string()];
        let answer: i64 = self
            .store
            .run(&CLAIM, &[done.as_str(), claim.as_str()], &args, None)
            .await?;
        match answer {
            0 => Ok(WorkClaim::Claimed(WorkToken {
                plan: plan.clone(),
                item,
                token,
            })),
            1 => Ok(WorkClaim::Taken),
            2 => Ok(WorkClaim::Done),
            other => Err(RedisError::UnexpectedAnswer {
                script: "claim",
                answer: other.to_string(),
            }
            .into()),
        }
    }

    /// Extends the claim of `token` by `lease`; `false` when it was lost (the lease ended first).
    pub async fn renew(&self, token: &WorkToken, lease: Duration) -> Result<bool, SharedWorkError> {
        let claim = self.claim_key(&token.plan, token.item);
        let args = [token.token.clone(), millis(lease).to_string()];
        let renewed: i64 = self.store.run(&RENEW_CLAIM, &[claim.as_str()], &args, None).await?;
        Ok(renewed == 1)
    }

    /// Marks the item of `token` finished with its `records`, and ends the
    /// plan when all `items` of it are: `false` (nothing recorded) when the
    /// claim was lost meanwhile, so another worker may be doing it.
    pub async fn finish(
        &self,
        token: &WorkToken,
        items: usize,
        records: &[(String, String)],
    ) -> Result<bool, SharedWorkError> {
        let claim = self.claim_key(&token.plan, token.item);
        let done = self.done(&token.plan);
        let mut args = vec![
            token.token.clone(),
            token.item.to_string(),
            items.to_string(),
            millis(PLAN_LIFETIME).to_string(),
            token.plan.id.clone(),
        ];
        args.extend(records.iter().flat_map(|(name, value)| [name.clone(), value.clone()]));
        let keys = [self.plan.as_str(), done.as_str(), self.records.as_str(), claim.as_str()];
        let finished: i64 = self.store.run(&FINISH, &keys, &args, None).await?;
        Ok(finished == 1)
    }

    /// Gives the claim of `token` up (the item was not finished: another worker may take it now).
    pub async fn release(&self, token: &WorkToken) -> Result<(), SharedWorkError> {
        let claim = self.claim_key(&token.plan, token.item);
        let args = std::slice::from_ref(&token.token);
        let _: i64 = self.store.run(&RELEASE_CLAIM, &[claim.as_str()], args, None).await?;
        Ok(())
    }
}

/// KEYS: plan. ARGV: this worker's plan, lifetime (ms). The plan in progress, or this one stored.
static AGREE: LuaScript = LuaScript::new(
    r#"
local current = redis.call('GET', KEYS[1])
if current then return current end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]
"#,
);

/// KEYS: records. ARGV: cursor. The next cursor, then up to about 100 records as name, value.
static RECORDS_PAGE: LuaScript = LuaScript::new(
    r#"
local page = redis.call('HSCAN', KEYS[1], ARGV[1], 'COUNT', 100)
local out = {page[1]}
for _, value in ipairs(page[2]) do out[#out + 1] = value end
return out
"#,
);

/// Pages `records` reads at most (about 100 records each): far past any
/// export's partitions, and an end to a store that never says the last.
const MAX_RECORD_PAGES: usize = 100_000;

/// KEYS: done, claim. ARGV: item, token, lease (ms). 0 claimed, 1 taken, 2 done.
static CLAIM: LuaScript = LuaScript::new(
    r#"
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 2 end
if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then return 0 end
return 1
"#,
);

/// KEYS: claim. ARGV: token, lease (ms). 1 when the holder's claim was extended.
static RENEW_CLAIM: LuaScript = LuaScript::new(
    r#"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"#,
);

/// KEYS: claim. ARGV: token. Compare-and-delete.
static RELEASE_CLAIM: LuaScript = LuaScript::new(
    r#"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
"#,
);

/// KEYS: plan, done, records, claim. ARGV: token, item, items, lifetime
/// (ms), plan id, then record names and values. 1 when recorded; the plan
/// ends with its last item (its finished items stay, to expire).
static FINISH: LuaScript = LuaScript::new(
    r#"
if redis.call('GET', KEYS[4]) ~= ARGV[1] then return 0 end
for i = 6, #ARGV, 2 do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
end
redis.call('HSET', KEYS[2], ARGV[2], '1')
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('DEL', KEYS[4])
local plan = redis.call('GET', KEYS[1])
local ours = plan and string.sub(plan, 1, #ARGV[5] + 1) == ARGV[5] .. '\n'
if ours and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then
  redis.call('DEL', KEYS[1])
elseif ours then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return 1
"#,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_name_cannot_reach_another_jobs_keys() {
        let store = RedisQuota::new("redis://127.0.0.1:1/", "acct").unwrap();
        let work = SharedWork::new(store, "r=1.day-2:{x}/é");
        assert_eq!(work.plan, "{vidplat:acct}:work:r=1.day-2__x___:plan");
        assert_eq!(work.records, "{vidplat:acct}:work:r=1.day-2__x___:records");
    }
}
