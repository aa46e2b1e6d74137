const path = require("path");
const { slug } = require("./util");
const Store = require("./store");

class App extends Base {
  constructor() {
    super();
    this.store = new Store();
  }
  run(name) {
    this.store.put(slug(name));
    path.join("a", name);
    helper();
  }
}

function helper() {}

module.exports = App;
