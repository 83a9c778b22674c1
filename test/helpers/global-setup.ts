/** Runs once around the whole suite: the place for checks that span every test file. */
export default function setup(): void {}
