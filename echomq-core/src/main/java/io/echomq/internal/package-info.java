/**
 * Internal machinery: script loading and running, key naming, argument checks and connections.
 * Not exported by {@code module-info}; nothing here is a public contract and it may change in any
 * release.
 */
package io.echomq.internal;
