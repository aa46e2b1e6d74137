export { number } from "./number";
export { NumberSchema as NumSchema } from "./number";
