import { AppBase } from "./base";

export class App extends AppBase {}
