// CommonJS module exporting a single function.
const { join } = require('path')

const SEP = '/'

/**
 * Joins segments with a slash.
 */
function joinAll (...parts) {
  return join(...parts).split('\\').join(SEP)
}

function unused () {}

module.exports = joinAll
