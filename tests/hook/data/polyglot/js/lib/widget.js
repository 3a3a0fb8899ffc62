'use strict';

class Widget {
  constructor(name) {
    this.name = name;
  }

  render() {
    return widget(this.name);
  }

  get title() {
    return this.name.toUpperCase();
  }
}

function widget(name) {
  return `[${name}]`;
}

module.exports = function () {
  return new Widget('default');
};
module.exports.Widget = Widget;
