class Store {
  put(v) {}
}
module.exports = Store;
