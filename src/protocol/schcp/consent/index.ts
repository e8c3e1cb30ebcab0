export { renderConsentText, type ConsentOptions } from "./render.js";
