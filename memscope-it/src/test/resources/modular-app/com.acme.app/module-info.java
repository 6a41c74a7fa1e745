/** An application on the module path that uses memscope's API as a named module (ModulePathTest). */
module com.acme.app {
    requires io.memscope.core;
}
