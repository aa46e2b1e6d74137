pub struct Db {}

impl Db {
    pub fn open(path: &str) -> Db {
        Db {}
    }
    pub fn put(&self, v: &str) {}
    pub fn get(&self, k: &str) -> Option<String> {
        None
    }
}
