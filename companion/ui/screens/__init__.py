"""The touchscreen's screens, a module each (their view models in :mod:`companion.ui.viewmodels`);
:mod:`companion.ui.app` is the shell that shows them."""
