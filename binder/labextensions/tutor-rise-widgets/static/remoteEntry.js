/*
 * tutor-rise-widgets: lets ipywidgets 8 (the course's explorers) run in jupyterlab-rise's slideshow.
 *
 * jupyterlab-rise (0.43.1) shows a notebook as slides in a page of its own, a small JupyterLab-like app that loads
 * every installed front-end extension. The ipywidgets one asks that app for @jupyterlab/console (to find widget
 * managers for consoles), which the app does not have: the extension then fails to load, and every widget shows as
 * text (jupyterlab-contrib/rise issue 119). Nothing else of that package is used: only its IConsoleTracker token,
 * which no plugin of the slideshow provides, so the widgets extension gets none and runs without consoles.
 *
 * This file is a front-end extension written by hand (no build step): a module-federation container that, when the
 * app initialises it, adds a stand-in for each such package that the app's shared scope lacks. The stand-in holds
 * only fresh tokens of the names the widgets extension imports. In JupyterLab itself, where the real packages are
 * shared, it adds nothing. binder/install-slideshow installs it (binder/postBuild and `make lab` run that).
 */
(function () {
  'use strict';
  var NAME = 'tutor-rise-widgets';
  /* package -> the names the widgets extension imports from it (tokens only) */
  var STAND_INS = {
    '@jupyterlab/console': ['IConsoleTracker'],
    '@jupyterlab/logconsole': ['ILoggerRegistry'],
    '@jupyterlab/mainmenu': ['IMainMenu']
  };

  function latest(versions) {
    var keys = Object.keys(versions || {});
    return keys.length ? versions[keys[keys.length - 1]] : null;
  }

  function standIn(scope, name) {
    return {
      from: NAME,
      eager: false,
      get: function () {
        var coreutils = latest(scope['@lumino/coreutils']);
        return Promise.resolve(coreutils.get()).then(function (factory) {
          var Token = factory().Token;
          var module = {};
          STAND_INS[name].forEach(function (token) {
            module[token] = new Token(name + ':' + token + ' (not in this app)');
          });
          return function () { return module; };
        });
      }
    };
  }

  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = {
    init: function (scope) {
      Object.keys(STAND_INS).forEach(function (name) {
        if (latest(scope[name]) || !latest(scope['@lumino/coreutils'])) return;
        scope[name] = {'0.0.0-tutor': standIn(scope, name)};
      });
    },
    get: function (module) {
      return Promise.reject(new Error(NAME + ' has no module ' + module + ': it only shares stand-ins'));
    }
  };
})();
