// A setter of a required id member (the generated setters have this bound).
fn task_id<T: vidplat_core::IntoValue<std::num::NonZeroU64>>(_value: T) {}

// A setter of an optional text member.
fn description<T: vidplat_core::IntoOptional<String>>(_value: T) {}

fn main() {
    task_id(7.5_f64);
    description(vec![1_u8]);
}
