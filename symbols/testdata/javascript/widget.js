/**
 * Widget helpers: a fixture for JavaScript symbol extraction.
 */
'use strict';

const DEFAULT_SIZE = 10;
var legacyFlag = true;
let counter = 0, other = () => counter++;

/**
 * Widget renders things.
 */
class Widget extends Base {
  static instances = 0;

  /** Click handler bound to the instance. */
  handleClick = (event) => {
    this.clicked = true;
  };

  constructor(name) {
    super();
    this.name = name;
  }

  /** Renders the widget. */
  render() {
    return `<div>${this.name}</div>`;
  }

  #internal() {}

  get size() {
    return DEFAULT_SIZE;
  }
}

/**
 * Creates a widget.
 * @param {string} name
 */
export async function* createWidgets(name, count = 1) {
  for (let i = 0; i < count; i++) {
    yield new Widget(name);
  }
}

export const helper = function helper() {
  const obj = {
    method() {},
  };
  return obj;
};

function Legacy(name) {
  this.name = name;
}

/** Greets. */
Legacy.prototype.greet = function () {
  return "hi " + this.name;
};

exports.util = function util() {};
module.exports.other = () => {};
module.exports = { Widget, Legacy };
obj.notADefinition = function () {};
