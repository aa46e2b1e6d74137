function slug(s) {
  return s;
}
module.exports = { slug };
