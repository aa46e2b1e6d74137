const App = require("./app");

describe("App", function () {
  it("runs", function () {
    new App().run("x");
  });
});
