pub mod store;
mod util;

use crate::store::Db;
use util::slug as make_slug;

pub struct Cart {
    db: Db,
}

impl Cart {
    pub fn new() -> Cart {
        Cart { db: Db::open("x") }
    }

    pub fn add(&mut self, item: &str) {
        let clean = make_slug(item);
        self.db.put(&clean);
        let other = Db::open("y");
        other.get(&clean);
        Self::validate();
        util::trim(item);
    }

    fn validate() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        let mut c = Cart::new();
        c.add("x");
    }
}
